package docstore

import (
	"fmt"

	"github.com/citelens/citelens/storage"
)

// recordSets describe the library's records that a database
// administrator reads (documents, their files, saved answers) to a
// store that can show them as tables (storage.Tabulator: on PostgreSQL,
// the views citelens_documents, citelens_files, citelens_file_pieces and
// citelens_answers). The descriptions live here, beside the records, so
// the store names none of the library's buckets; a change of a record
// that a view reads must change its set here (and FORMAT.md).
var recordSets = []storage.RecordSet{{
	Name:    "documents",
	Comment: "citelens: the library's documents, one row each (the docs bucket's DocInfo records)",
	Bucket:  string(bucketDocs),
	KeyParts: []storage.KeyPart{
		{Name: "id", Comment: "the document's ID: the first 16 hex digits of its file's SHA-256", Kind: storage.KeyText},
	},
	JSON: true,
	Columns: []storage.Column{
		{Name: "name", Comment: "the file name it was added from", Path: "name", Type: storage.ColText},
		{Name: "path", Comment: "the file's absolute path when it was added, on the machine that added it", Path: "path", Type: storage.ColText},
		{Name: "kind", Comment: "pdf, text, markdown, html, docx, epub…", Path: "kind", Type: storage.ColText},
		{Name: "title", Comment: "the document's title, when it has one", Path: "title", Type: storage.ColText},
		{Name: "pages", Comment: "its pages (1 for a document without pages)", Path: "pages", Type: storage.ColInteger},
		{Name: "sentences", Comment: "its sentences, the units citations cite", Path: "sentences", Type: storage.ColInteger},
		{Name: "text_bytes", Comment: "the length of its stored text in bytes", Path: "bytes", Type: storage.ColInteger},
		{Name: "added", Comment: "when it was added", Path: "added", Type: storage.ColTime},
		{Name: "added_by", Comment: "the database role that added it", Path: "added_by.role", Type: storage.ColText},
		{Name: "added_by_os_user", Comment: "the operating-system user who ran citelens to add it", Path: "added_by.user", Type: storage.ColText},
		{Name: "file_sha256", Comment: "the SHA-256 of its original file when the library keeps it (citelens_files), else null", Path: "file.sha256", Type: storage.ColText},
		{Name: "info", Comment: "the whole record, JSON (docstore/FORMAT.md)", Type: storage.ColJSON},
	},
}, {
	Name:    "files",
	Comment: "citelens: the original files kept in the library, one row per document added from one; the bytes are in citelens_file_pieces",
	Bucket:  string(bucketDocs),
	Where:   "file",
	KeyParts: []storage.KeyPart{
		{Name: "document", Comment: "the document's ID (citelens_documents.id)", Kind: storage.KeyText},
	},
	JSON: true,
	Columns: []storage.Column{
		{Name: "sha256", Comment: "the file's SHA-256, lowercase hex (citelens_file_pieces.sha256)", Path: "file.sha256", Type: storage.ColText},
		{Name: "size", Comment: "the file's size in bytes", Path: "file.size", Type: storage.ColInteger},
		{Name: "pieces", Comment: fmt.Sprintf("how many pieces of %d bytes (the last shorter) hold it", filePiece), Path: "file.pieces", Type: storage.ColInteger},
	},
}, {
	Name:    "file_pieces",
	Comment: "citelens: the bytes of the kept original files, by SHA-256, in pieces; a file's bytes are string_agg(bytes, '' ORDER BY piece)",
	Bucket:  string(bucketFiles),
	KeyParts: []storage.KeyPart{
		{Name: "sha256", Comment: "the file's SHA-256, lowercase hex", Kind: storage.KeyHex, Len: 32},
		{Name: "piece", Comment: "the piece's number, from 0", Kind: storage.KeyUint32, Len: 4},
	},
	Columns: []storage.Column{
		{Name: "bytes", Comment: "the piece's bytes", Type: storage.ColBytes},
	},
}, {
	Name:    "answers",
	Comment: "citelens: saved answers, one row each (the answers bucket's JSON records)",
	Bucket:  string(bucketAnswers),
	KeyParts: []storage.KeyPart{
		{Name: "id", Comment: "the answer's ID: milliseconds since 1970 and random bits, in hex, so IDs sort by time", Kind: storage.KeyText},
	},
	JSON: true,
	Columns: []storage.Column{
		{Name: "question", Comment: "the question asked", Path: "question", Type: storage.ColText},
		{Name: "strategy", Comment: "the strategy that answered", Path: "strategy", Type: storage.ColText},
		{Name: "created", Comment: "when it was asked", Path: "created", Type: storage.ColTime},
		{Name: "author", Comment: "the database role that saved it", Path: "author.role", Type: storage.ColText},
		{Name: "author_os_user", Comment: "the operating-system user who ran citelens", Path: "author.user", Type: storage.ColText},
		{Name: "record", Comment: "the whole answer: statements, citations with their byte ranges, verdicts (JSON)", Type: storage.ColJSON},
	},
}}

// tabulate hands the record sets to a store that shows them as tables.
func tabulate(db storage.DB) error {
	t, ok := db.(storage.Tabulator)
	if !ok {
		return nil
	}
	if err := t.Tabulate(recordSets); err != nil {
		return fmt.Errorf("making the tables that show the library's records: %w", err)
	}
	return nil
}
