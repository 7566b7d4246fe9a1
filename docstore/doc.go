// Package docstore is the library on disk: documents with their stored
// text, sentences, chunks, sections and tables, page geometry, a BM25
// index over sentences, chunks, headings and table contexts, embeddings,
// derived documents and saved answers, all in one bbolt file.
//
// The library stores what it is given and reads no files: the add
// pipeline (ingest) reads a file, makes a Document of it and hands it to
// the write path (write.go): Prepare checks and indexes it, Write stores
// prepared documents in one transaction, a PieceWriter writes one too
// large to hold a piece at a time, and a Rebuild replaces every document
// with a new version of itself. The index is the library's: documents
// come in with their text split into sentences and go out with their
// postings.
//
// Every offset in the library is a byte offset into a document's stored
// text, which never changes once stored: a citation's bytes stay the
// cited bytes.
//
// A damaged library file or record is reported as ErrCorrupt ("the
// library is damaged: …") rather than crashing; Inspect lists the damage
// and Salvage copies what is readable into a new library. A damaged
// library is never written: a Library that may write checks the file's
// page accounting (every page in use once or free, never both) each time
// it opens a file another process may have changed, and the first damage
// it finds, there or in any record it reads, makes it read-only for the
// rest of its life — reads go on, writes fail with that damage (Damage).
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
//     preparing a document, or waiting for a model, holds nothing. A
//     transaction that finds another process writing waits for it,
//     telling Options.Waiting, and gets ErrLocked only after
//     Options.LockTimeout (DefaultLockTimeout). A process that removes or
//     rebuilds documents makes the others drop what they cached of them.
//   - A Document returned by Library.Document is shared and cached: do not
//     modify it.
//   - Sentence and chunk tables use int32 offsets: one document's text is
//     limited to 2 GB.
//   - Indexes store term frequencies and lengths, not scores, so BM25's k1
//     and b are chosen per search; changing the analysis (textproc) needs a
//     new schema version and a re-index.
package docstore
