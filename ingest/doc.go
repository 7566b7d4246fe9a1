// Package ingest is the add pipeline: it reads files into the library
// (docstore). A Pipeline over a library adds files (Add, AddFiles) and
// rebuilds the library's documents with this build's analysis (Reindex).
//
// Adding a file reads it with the loader registered for its extension
// (loader.go: text and Markdown verbatim, PDF through pdftext with OCR of
// scanned pages by ocr, web pages through htmltext, Word files through
// docx, e-books through epub), splits it into sentences and chunks
// (split), finds its sections, tables and the kind of each sentence
// (headings, from what the loader reported and what the text shows), and
// hands the document to the library's write path, which indexes it and
// writes everything in a single transaction — several small files to a
// transaction, a large text a piece at a time (stream.go).
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
//
// # Caveats
//
//   - Add and Load run the loader on a goroutine of their own and return as
//     soon as their context is done, even when the loader is stuck inside a
//     library that checks no context (runloader.go). Go cannot stop a
//     goroutine, so an abandoned loader runs on, its result discarded,
//     until it returns or the process exits: loaders still bound their own
//     work.
//   - Extracting and indexing a file holds no lock on the library: other
//     processes read and write it meanwhile, and only the writing
//     transaction waits for them.
package ingest
