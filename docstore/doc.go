// Package docstore is the library: documents with their stored text,
// sentences, chunks, sections and tables, page geometry, a BM25 index over
// sentences, chunks, headings and table contexts, embeddings, derived
// documents and saved answers, all in one store.
//
// The library's records and index are read and written through the
// storage seam (storage.DB: transactional, ordered key-value storage in
// nested buckets), and every file that reads or writes a record is
// storage-neutral: records.go, docread.go, the write path (write.go,
// docwrite.go, piecewrite.go, rebuild.go, pending.go), the index
// (segments.go, blocks.go, index.go, indexread.go, view.go), answers.go,
// geometry.go, library.go, and check.go's and salvage.go's records.
// (derived.go and vectors.go still use bbolt's types, through the store's
// bbolt transactions: their records are kept only in a bbolt store.)
//
// Open opens a library file: a bbolt file, which is the one part of the
// package that is bbolt by nature (the files whose comment says they are
// part of the library file: handle.go, boltopen.go, boltfile.go,
// boltpages.go, boltcheck.go, damage.go, marker.go, sidecar.go,
// boltmap_*.go). It is opened on demand and shared with other processes
// under bbolt's flock, with wait markers and holder notes, its pages
// walked before bbolt may read them, bbolt's panics contained, and damage
// turning the process read-only; it presents itself to the rest of the
// package as a storage.DB. OpenStore opens a library in any other store,
// which has none of that: its records only.
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
// and Salvage copies what is readable into a new library (of a store
// other than a file, they check and copy its records only). A damaged
// library file is never written: a Library that may write checks the
// file's page accounting (every page in use once or free, never both)
// each time it opens a file another process may have changed, and the
// first damage it finds, there or in any record it reads, makes it
// read-only for the rest of its life — reads go on, writes fail with that
// damage (Damage).
//
// Library's own methods are about documents and the store. What is kept
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
//     rebuilds documents makes the others drop what they cached of them
//     (in a store other than a file, at the first read that sees a new
//     version of the store).
//   - A Document returned by Library.Document is shared and cached: do not
//     modify it.
//   - Sentence and chunk tables use int32 offsets: one document's text is
//     limited to 2 GB.
//   - Indexes store term frequencies and lengths, not scores, so BM25's k1
//     and b are chosen per search; changing the analysis (textproc) needs a
//     new schema version and a re-index.
package docstore
