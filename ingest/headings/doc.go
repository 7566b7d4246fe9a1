// Package headings finds the structure of a document's text: its sections
// (from the headings its loader reported and the ones the text shows —
// Markdown markers, numbered and keyword headings, capitalised and title
// lines, the topics of a reference manual), the kind of each sentence that
// ranking demotes (page furniture, contents lines, code, fragments), and
// its tables' rows. The add pipeline (ingest) runs it on every document it
// stores; the shapes it returns are the library's (docstore/structure).
//
// All positions are byte offsets into the text given, so they stay exact
// when the text is cited.
package headings
