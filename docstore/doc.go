// Package docstore is the library on disk: documents with their stored
// text, sentences, chunks, a BM25 index over sentences and chunks, and saved
// answers, all in one bbolt file.
//
// Adding a file (Library.Add) reads it with the loader registered for its
// extension (loader.go: text and Markdown verbatim, PDF through pdftext
// with OCR of scanned pages by ocr, web pages through htmltext, Word files
// through docx, e-books through epub), splits it into sentences (segment),
// groups sentences into chunks, indexes both levels, and writes everything
// in a single transaction. Loaders also report the headings and tables they
// find (structure), kept on the loaded Document.
//
// Every offset in the library is a byte offset into a document's stored
// text. For .txt and .md files the stored text is the file verbatim, so the
// offsets are offsets into the file, with two exceptions: a UTF-8 byte
// order mark is dropped (offsets count from the byte after it), and a
// UTF-16 file (with or without a byte order mark) is stored decoded to
// UTF-8, so its offsets are into the decoded text, not the file.
//
// Add reads only regular files (after following symlinks) no larger than
// Options.MaxFileSize, checking the type and size before reading a byte.
// A damaged library file or record is reported as ErrCorrupt ("the
// library is damaged: …") rather than crashing; Inspect lists the damage
// and Salvage copies what is readable into a new library. A damaged
// library is never written: a Library that may write checks the file's
// page accounting (every page in use once or free, never both) each time
// it opens a file another process may have changed, and the first damage
// it finds, there or in any record it reads, makes it read-only for the
// rest of its life — reads go on, writes fail with that damage.
//
// Library's own methods are about documents and the file. What is kept
// beside the documents is reached through the library's parts (parts.go),
// each with the methods of one concern: Answers, Geometry, Vectors,
// Derived and Index, as in lib.Answers().Recent(before, n).
//
// # Caveats
//
//   - Many processes share a library. A Library holds the file (and bbolt's
//     lock on it) only for its transactions and a moment after (handle.go):
//     extracting and indexing a file, or waiting for a model, holds
//     nothing. A transaction that finds another process writing waits for
//     it, telling Options.Waiting, and gets ErrLocked only after
//     Options.LockTimeout (DefaultLockTimeout). A process that removes or
//     reindexes documents makes the others drop what they cached of them.
//   - Add and Load run the loader on a goroutine of their own and return as
//     soon as their context is done, even when the loader is stuck inside a
//     library that checks no context (runloader.go). Go cannot stop a
//     goroutine, so an abandoned loader runs on, its result discarded,
//     until it returns or the process exits: loaders still bound their own
//     work.
//   - A Document returned by Library.Document is shared and cached: do not
//     modify it.
//   - Sentence and chunk tables use int32 offsets: one document's text is
//     limited to 2 GB.
//   - Indexes store term frequencies and lengths, not scores, so BM25's k1
//     and b are chosen per search; changing the analysis (textproc) needs a
//     new schema version and a re-index.
package docstore
