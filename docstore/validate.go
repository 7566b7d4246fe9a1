package docstore

import "fmt"

// A damaged record must not reach the code that slices text by its
// offsets: a layout record whose sentence ends past the text made `show
// --sentences` and `ask` panic in Document.SentenceText. Every document is
// decoded through decodeDocument (docread.go), which checks the tables
// against the text and the metadata before anyone sees them.

// validateLayout checks d's tables against its text: pages start in order
// within the text; every sentence satisfies 0 ≤ Start ≤ End ≤ len(Text),
// starts no earlier than the one before, and lies on a page that exists;
// every chunk is a run First ≤ Last of existing sentences. Accessors such
// as SentenceText and ChunkSpan cannot fail on a document that passes.
func validateLayout(d *Document) error {
	n := int64(len(d.Text))
	if len(d.PageStarts) == 0 {
		return fmt.Errorf("has no pages")
	}
	prev := int32(0)
	for i, ps := range d.PageStarts {
		if ps < prev || int64(ps) > n {
			return fmt.Errorf("puts page %d at byte %d, outside the %d-byte text or before page %d", i+1, ps, n, i)
		}
		prev = ps
	}
	prev = 0
	for i, s := range d.Sentences {
		switch {
		case s.Start < 0 || s.Start > s.End || int64(s.End) > n:
			return fmt.Errorf("has sentence %d at bytes %d-%d, outside the %d-byte text", i, s.Start, s.End, n)
		case s.Start < prev:
			return fmt.Errorf("has sentence %d starting before sentence %d", i, i-1)
		case s.Page < 1 || int(s.Page) > len(d.PageStarts):
			return fmt.Errorf("puts sentence %d on page %d of %d", i, s.Page, len(d.PageStarts))
		}
		prev = s.Start
	}
	for i, c := range d.Chunks {
		if c.First < 0 || c.First > c.Last || int(c.Last) >= len(d.Sentences) {
			return fmt.Errorf("has chunk %d over sentences %d-%d of %d", i, c.First, c.Last, len(d.Sentences))
		}
	}
	return validateStructure(d)
}

// validateStructure checks the sections, tables and each sentence's
// references to them, so a heading path or a table's context is never
// read out of bounds.
func validateStructure(d *Document) error {
	n := len(d.Text)
	for i, sec := range d.Sections {
		switch {
		case !sec.Heading.Valid(n):
			return fmt.Errorf("has section %d's heading at bytes %d-%d, outside the %d-byte text", i, sec.Heading.Start, sec.Heading.End, n)
		case sec.Parent < -1 || int(sec.Parent) >= i:
			return fmt.Errorf("has section %d under section %d", i, sec.Parent)
		case sec.Sentence < -1 || int(sec.Sentence) >= len(d.Sentences):
			return fmt.Errorf("has section %d's heading at sentence %d of %d", i, sec.Sentence, len(d.Sentences))
		}
	}
	for i, t := range d.Tables {
		if t.Caption.Len() != 0 && !t.Caption.Valid(n) {
			return fmt.Errorf("has table %d's caption outside the text", i)
		}
		for _, r := range append(t.Header[:len(t.Header):len(t.Header)], t.Rows...) {
			if !r.Valid(n) {
				return fmt.Errorf("has a row of table %d at bytes %d-%d, outside the %d-byte text", i, r.Start, r.End, n)
			}
		}
	}
	for i, s := range d.Sentences {
		if s.Section < -1 || int(s.Section) >= len(d.Sections) {
			return fmt.Errorf("puts sentence %d in section %d of %d", i, s.Section, len(d.Sections))
		}
		if s.Table < -1 || int(s.Table) >= len(d.Tables) {
			return fmt.Errorf("puts sentence %d in table %d of %d", i, s.Table, len(d.Tables))
		}
	}
	return nil
}

// validateCounts checks d's metadata against its records.
func validateCounts(d *Document) error {
	switch {
	case d.Bytes != len(d.Text):
		return fmt.Errorf("says %d bytes of text; the text record has %d", d.Bytes, len(d.Text))
	case d.NumSents != len(d.Sentences):
		return fmt.Errorf("says %d sentences; the layout record has %d", d.NumSents, len(d.Sentences))
	case d.NumChunks != len(d.Chunks):
		return fmt.Errorf("says %d chunks; the layout record has %d", d.NumChunks, len(d.Chunks))
	}
	return nil
}
