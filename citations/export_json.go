package citations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// WriteJSON writes a as indented JSON: every field, lossless (ReadJSON reads
// it back). Citations carry their document, name, sentence and byte ranges,
// page and the exact cited text; verdicts their level, score and judge.
// Quotes stay readable ("<", not "\u003c"); C1 controls and bidi overrides
// are written as \u escapes (textproc.WriteJSON), which read back the same.
func WriteJSON(w io.Writer, a *Answer) error {
	if err := textproc.WriteJSON(w, a, "  "); err != nil {
		return fmt.Errorf("writing the answer as JSON: %w", err)
	}
	return nil
}

// ReadJSON reads an answer written by WriteJSON.
func ReadJSON(r io.Reader) (*Answer, error) {
	var a Answer
	dec := json.NewDecoder(r)
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("reading an answer from JSON: %w", err)
	}
	return &a, nil
}

// Provenance is what an export says of the versions of documents an
// answer cites: each cited version (its number, when it was added, its
// content hash) and, when a newer version changed the evidence, the
// changes. The Markdown and HTML exports print its lines (a notice at the
// top, "Versions cited" at the end); the JSON export carries it as fields
// of its own beside the answer's (WithProvenance).
type Provenance struct {
	Versions []VersionCited  `json:"versions_cited"`
	Changed  *EvidenceChange `json:"evidence_changed,omitempty"`
}

// VersionCited is one document version an answer cites.
type VersionCited struct {
	Doc docstore.DocID `json:"doc"`
	// InLibrary is false for a version removed since: the rest is then
	// unknown and left out.
	InLibrary bool   `json:"in_library"`
	Name      string `json:"name,omitempty"`
	// Version is its number among Versions, from 1 (the first added);
	// Version < Versions means a newer version was added since.
	Version  int       `json:"version,omitempty"`
	Versions int       `json:"versions,omitempty"`
	Added    time.Time `json:"added,omitzero"`
	// Line is the line the Markdown and HTML exports print for it.
	Line string `json:"line"`
}

// EvidenceChange says that a newer version changed what the answer cites.
type EvidenceChange struct {
	// Recheck is the command that re-anchors and re-checks the answer.
	Recheck string            `json:"recheck"`
	Changes []CitationChanged `json:"changes"`
}

// CitationChanged is one citation whose text changed or is gone in the
// latest version of its document.
type CitationChanged struct {
	// Answer is, in a thread's export, which of its answers the citation
	// belongs to, from 1; 0 (left out) in one answer's.
	Answer int `json:"answer,omitempty"`
	// Statement and Citation count from 1, as the exports number them.
	Statement int    `json:"statement"`
	Citation  int    `json:"citation"`
	Class     string `json:"class"` // changed or gone
	OldText   string `json:"old_text"`
	NewText   string `json:"new_text,omitempty"`
	// Line is the line the Markdown and HTML exports print for it: for a
	// changed citation its word difference, for a gone one its old text.
	Line string `json:"line"`
}

// WithProvenance returns doc, an answer as the json export writes it (a
// JSON object), with p's fields (versions_cited, evidence_changed) added
// after the answer's own, indented as they are; ReadJSON reads the answer
// back as before, skipping them. Their strings are made printable
// (textproc.SafeJSON), as every output's are.
func WithProvenance(doc []byte, p Provenance) ([]byte, error) {
	end := bytes.LastIndexByte(doc, '}')
	body := bytes.TrimRight(doc[:max(end, 0)], " \n")
	if end < 0 || !bytes.HasPrefix(bytes.TrimSpace(doc), []byte("{")) {
		return nil, errors.New("adding the versions cited: the export is not a JSON object")
	}
	var b bytes.Buffer
	if err := textproc.WriteSafeJSON(&b, p, "  "); err != nil {
		return nil, fmt.Errorf("writing the versions cited as JSON: %w", err)
	}
	// p's object without its braces: its fields, at the answer's indent.
	fields := bytes.TrimSuffix(bytes.TrimPrefix(b.Bytes(), []byte("{\n")), []byte("\n}\n"))
	out := make([]byte, 0, len(doc)+len(fields)+8)
	out = append(out, body...)
	if !bytes.HasSuffix(body, []byte("{")) {
		out = append(out, ',')
	}
	out = append(out, '\n')
	out = append(out, fields...)
	return append(out, "\n}\n"...), nil
}
