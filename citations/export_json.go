package citations

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes a as indented JSON: every field, lossless (ReadJSON reads
// it back). Citations carry their document, name, sentence and byte ranges,
// page and the exact cited text; verdicts their level, score and judge.
func WriteJSON(w io.Writer, a *Answer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // quotes stay readable: "<" not "\u003c"
	if err := enc.Encode(a); err != nil {
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
