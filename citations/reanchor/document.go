package reanchor

import "github.com/citelens/citelens/docstore"

// FromDocument is a stored document as a version to align: its text, and
// each sentence's bytes, page and heading path.
func FromDocument(d *docstore.Document) *Version {
	v := &Version{Text: d.Text, Sentences: make([]Sentence, len(d.Sentences))}
	paths := map[int32]string{}
	for i, s := range d.Sentences {
		h, ok := paths[s.Section]
		if !ok {
			h = d.HeadingTrail(i)
			paths[s.Section] = h
		}
		v.Sentences[i] = Sentence{Start: int(s.Start), End: int(s.End), Page: int(s.Page), Heading: h}
	}
	return v
}
