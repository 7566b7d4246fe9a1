// Package pagerender draws PDF pages to pixels, with nothing on the
// machine but this program: PDFium, compiled to WebAssembly, runs inside
// the process on wazero (github.com/klippa-app/go-pdfium's WebAssembly
// mode). No cgo, no system library, no helper program.
//
// A Renderer is one PDFium instance for the life of the program. Its
// first start compiles PDFium's 5.8 MB of WebAssembly to machine code,
// which takes about 15 seconds on a small machine; the compiled code is
// kept in a cache folder (DefaultCacheDir), after which a start takes
// well under a second. Start in the background and show progress:
// Warm says whether a start will be quick.
//
// Positions on a page are fractions of the page as it is shown (its
// CropBox, turned by its /Rotate), from its top-left corner: the same
// frame the library's geometry uses, so a cited line's box maps onto a
// rendered picture whatever its resolution or crop.
//
// Highlight burns a translucent marker over boxes into a picture's
// pixels, so every way of showing the picture (a terminal protocol, a
// PNG, an HTML export) shows the same highlight.
//
// # Caveats
//
//   - PDFium is single-threaded: a Renderer serialises its calls, so two
//     pages render one after the other.
//   - PDFium runs as 32-bit WebAssembly, which caps a picture's size:
//     MaxPixels bounds what Render draws.
//   - PDFium sees no file system: documents are handed to it as bytes.
//   - A document that makes PDFium trap or loop is stopped after
//     Options.Timeout, or as soon as the caller's context is done; the
//     instance is then replaced and the error, one line, names the page.
//   - PDFium's memory is bounded at MemoryLimit, reserved once and never
//     copied as it grows; a page past it fails with ErrTooLarge, as does
//     a page whose images or objects declare more than the page budget
//     (MaxImagePixels, MaxObjects) before it is drawn.
package pagerender
