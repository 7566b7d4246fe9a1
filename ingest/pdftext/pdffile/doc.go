// Package pdffile opens PDF files through github.com/ledongthuc/pdf for
// the text extractor, with the library's known faults worked around.
//
// The library reads well-formed files well and has a content-stream
// interpreter worth keeping; on damaged or hostile files it loops,
// recurses, allocates without bound or panics, and it reports damage in
// its own terms. This package is the one layer between the library and
// citelens: the extractor opens files (Open, Rebuild), walks pages
// (File.Pages), reads streams (ReadStream), interprets content
// (Interpret) and tells objects apart (RefKeys, ArrayRefs) only through
// it, and says what went wrong through it (File.Fault, Phrase).
//
// # The library's faults, and what this package does about each
//
// Opening a file:
//
//   - Header: it refuses any header but "%PDF-1.0" … "%PDF-1.7" followed by
//     a newline (so PDF 2.0, and a file after a mail or download wrapper).
//     The header is read as "%PDF-1.7\n" (fixEnvelope).
//   - Tail: it wants "%%EOF" in the last 100 bytes. The file is read as
//     ending at its last "%%EOF" (fixEnvelope).
//   - Cross-reference sizes: it allocates its table from /Size, /Index and
//     the subsection headers, and a buffer from /W, before reading an
//     entry. Every section of the chain is read first with this package's
//     lexer, and numbers beyond what the file could hold are a *Damage
//     (readXref), so that the table is rebuilt instead.
//   - /Prev loops: it follows /Prev without remembering where it has been,
//     and a section pointing at itself, two pointing at each other, or a
//     stream doing so, loops forever. The /Prev that closes the loop is
//     blanked, each section is read once, and a warning says so
//     (readXref, source.blank). As a backstop, a guard counts what the
//     library reads while it opens a file and stops it at four times the
//     file's size (guard).
//   - Object streams inside object streams: it resolves an object
//     stream's own entry first, recursively, so a cross-reference entry
//     that puts an object stream in another recurses until the stack
//     overflows, which no recover catches. Such a table is a *Damage and
//     is rebuilt (xrefChain.check).
//   - Object streams: its lexer reads a hex string left open at the end of
//     an object stream forever, it reads /N header pairs past the end, and
//     it follows /Extends without a visited set. Each object stream it may
//     read is decoded once, through the library, and refused if any of
//     the three would not end (checkObjStms); an object stream is
//     decoded the way the library decodes it, so RC4 and AES-128 files
//     are checked too.
//   - Encryption: it decrypts only RC4 and AES-128. AES-256 files that
//     need no user password (what "restrict editing" makes) are decrypted
//     here (decryptAES256); others are ErrEncrypted, saying why.
//   - Damage: it has no repair. Rebuild scans the file for its objects
//     and lists those packed in object streams, as viewers do
//     (rebuildXref).
//   - Cost: it decodes an object stream from its start for every object
//     in it, and reads the file in thousands of small reads. A copy with
//     the packed objects written out plain is read instead (flatten), the
//     file through a block cache (cachedReader).
//   - Interruption: it takes no context. Every read it makes passes a
//     guard that panics with the context's error once it is done, which
//     unwinds it wherever it is reading (guard; File.Fault returns the
//     context's error for such a panic). Its loops that read nothing (the
//     lexer at the end of a stream) are kept from starting instead, above.
//
// Reading a file:
//
//   - Streams: Value.Reader reads without limit, panics on a filter or a
//     predictor it does not know, and allocates what /Columns says.
//     ReadStream checks the filters first and reads up to a limit.
//   - Content: pdf.Interpret takes only a stream of a file, and its lexer
//     reads a hex string left open at the end forever. Interpret runs it
//     on bytes, as the one stream of a file made in memory, closed off.
//   - Object identity: Value hides references, so a shared font looks
//     like many and a page tree that lists a node twice looks bigger.
//     RefKeys and ArrayRefs read references from Value's textual form.
//   - Page tree: its page access walks the tree from the root for every
//     page, trusting /Count, with no guard against a node listed inside
//     itself. File.Pages walks it once, each node once, bounded.
//   - Reports: it panics on damage anywhere, mostly with formatted strings
//     quoting its Go types and raw bytes of the file. File.Fault and Phrase
//     say the same in a reader's words, as a *Damage: by type where the
//     library gives one (the context's errors, this package's *Damage,
//     pdf.ErrInvalidPassword, the compression errors of the standard
//     library), by a table of the library's messages where it does not
//     (libraryMessages).
//
// # Caveats
//
// Files larger than 200 MB are read only through the library: they are
// not rebuilt, decrypted or flattened here, and damage in them is not
// placed at a byte. The checks mirror the library's lexer and readers of
// the version this module requires; a new version of the library needs
// this list read again.
package pdffile
