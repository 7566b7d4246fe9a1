package docstore

// The library's parts. Library's own methods are about its documents
// (listing, resolving, reading, removing them) and the file (checking,
// salvaging, closing it); what the library keeps beside the documents is
// reached through a part, which has the methods of that one concern:
//
//	lib.Answers().Recent(before, n)         saved answers (answers.go)
//	lib.Geometry().SpanRects(id, from, to)  page geometry (geometry.go)
//	lib.Vectors().Gaps(key)                 stored embeddings (vectors.go)
//	lib.Derived().Status(doc, set)          RAIDD's derived documents (derived.go)
//	lib.Index().Stats(docs, field, terms)   the search index's readers (indexread.go, stats.go)
//
// so that a consumer names, and can declare as a small interface of its
// own, only the part it uses. A part is the library itself under another
// type: the accessor converts the pointer, without a copy or an
// allocation, so a part shares the library's state, is safe for
// concurrent use as it is, and is usable as long as the library is open.
// (For that reason its methods' receivers are named l, as the library's
// are.)

// Answers is the library's saved answers: records a front end stores
// after an answer and reads back to show, export or delete it.
type Answers Library

// Answers returns the library's saved answers.
func (l *Library) Answers() *Answers { return (*Answers)(l) }

// Geometry is the library's page geometry: where each sentence of a PDF
// (or OCR'd) document stands on its pages, for the page view.
type Geometry Library

// Geometry returns the library's page geometry.
func (l *Library) Geometry() *Geometry { return (*Geometry)(l) }

// library is the library l is a part of.
func (l *Geometry) library() *Library { return (*Library)(l) }

// Vectors is the library's stored embeddings: vectors of a document's
// units (sentences, chunks, derived units) by embedding model, for dense
// retrieval.
type Vectors Library

// Vectors returns the library's stored embeddings.
func (l *Library) Vectors() *Vectors { return (*Vectors)(l) }

// library is the library l is a part of.
func (l *Vectors) library() *Library { return (*Library)(l) }

// Derived is the library's derived documents: the chunk summaries and
// questions RAIDD has a model write about a document, and their index.
type Derived Library

// Derived returns the library's derived documents.
func (l *Library) Derived() *Derived { return (*Derived)(l) }

// library is the library l is a part of.
func (l *Derived) library() *Library { return (*Library)(l) }

// Index is the library's search index, for reading: a query's postings
// and the statistics BM25 needs. (Adding a document writes it.)
type Index Library

// Index returns the readers of the library's search index.
func (l *Library) Index() *Index { return (*Index)(l) }
