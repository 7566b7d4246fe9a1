package citations

import (
	"encoding/json"
	"fmt"
	"io"

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
