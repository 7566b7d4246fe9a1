package reanchor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// Provenance is what an export of ans says of the versions it cites: each
// cited document's version number among its versions, when it was added
// and its content hash, and, when a newer version changed or dropped a
// cited sentence, each such change (newer carries the citations over;
// InLibrary makes one). infos is every document's metadata
// (docstore.Library.List), for the names and dates. Nil when ans cites
// nothing.
func Provenance(infos []docstore.DocInfo, ans *citations.Answer, newer Newer) (*citations.Provenance, error) {
	cited := citedDocs(ans)
	if len(cited) == 0 {
		return nil, nil
	}
	changes, err := Answer(ans, newer)
	if err != nil {
		return nil, err
	}
	byID := make(map[docstore.DocID]docstore.DocInfo, len(infos))
	for _, d := range infos {
		byID[d.ID] = d
	}
	p := &citations.Provenance{Versions: []citations.VersionCited{}}
	for _, id := range cited {
		d, ok := byID[id]
		if !ok {
			p.Versions = append(p.Versions, citations.VersionCited{Doc: id, Line: fmt.Sprintf("%s: no longer in the library", id)})
			continue
		}
		n, of := 1, 1
		if line := docstore.Lineage(infos, id); len(line) > 0 {
			of = len(line)
			for i, v := range line {
				if v.ID == id {
					n = i + 1
				}
			}
		}
		note := ""
		if n < of {
			note = fmt.Sprintf(" (a newer version, %d, was added since)", of)
		}
		p.Versions = append(p.Versions, citations.VersionCited{Doc: id, InLibrary: true, Name: d.DisplayName(), Version: n, Versions: of, Added: d.Added.UTC(),
			Line: fmt.Sprintf("%s: version %d of %d, added %s, content SHA-256 %s…%s",
				textproc.OneLine(d.DisplayName()), n, of, d.Added.UTC().Format("2006-01-02 15:04 UTC"), d.ID, note)})
	}
	if !Stale(changes) {
		return p, nil
	}
	ch := &citations.EvidenceChange{Recheck: "citelens recheck " + ans.ID}
	for _, c := range changes {
		if c.Class != Changed && c.Class != Gone {
			continue
		}
		line := fmt.Sprintf("statement %d, citation %d: %s", c.Statement+1, c.Citation+1, c.Class)
		if c.Class == Changed {
			line += ": " + DiffLine(c.Diff)
		} else {
			line += ": " + textproc.OneLine(c.OldText)
		}
		ch.Changes = append(ch.Changes, citations.CitationChanged{Statement: c.Statement + 1, Citation: c.Citation + 1, Class: string(c.Class),
			OldText: c.OldText, NewText: c.NewText, Line: line})
	}
	if len(ch.Changes) > 0 {
		p.Changed = ch
	}
	return p, nil
}

// Library is what working out an export's provenance reads of a library
// (*docstore.Library has it): every document's metadata, and the
// documents to align.
type Library interface {
	Documents
	List() ([]docstore.DocInfo, error)
}

// ProvenanceIn is Provenance for ans in lib, aligned by aligner; the
// library's metadata is read only when ans cites something.
func ProvenanceIn(lib Library, aligner *Aligner, ans *citations.Answer) (*citations.Provenance, error) {
	return provenanceIn(lib, aligner, []*citations.Answer{ans}, func(infos []docstore.DocInfo, newer Newer) (*citations.Provenance, error) {
		return Provenance(infos, ans, newer)
	})
}

// ThreadProvenanceIn is ThreadProvenance for a thread's answers in lib,
// as ProvenanceIn is for one.
func ThreadProvenanceIn(lib Library, aligner *Aligner, answers []*citations.Answer) (*citations.Provenance, error) {
	return provenanceIn(lib, aligner, answers, func(infos []docstore.DocInfo, newer Newer) (*citations.Provenance, error) {
		return ThreadProvenance(infos, answers, newer)
	})
}

func provenanceIn(lib Library, aligner *Aligner, answers []*citations.Answer,
	of func([]docstore.DocInfo, Newer) (*citations.Provenance, error)) (*citations.Provenance, error) {
	if !slices.ContainsFunc(answers, func(a *citations.Answer) bool { return len(citedDocs(a)) > 0 }) {
		return nil, nil
	}
	infos, err := lib.List()
	if err != nil {
		return nil, err
	}
	return of(infos, InLibrary(lib, infos, aligner))
}

// citedDocs returns the documents ans cites, each once, in the order of
// their first citation.
func citedDocs(ans *citations.Answer) []docstore.DocID {
	var cited []docstore.DocID
	seen := map[docstore.DocID]bool{}
	for _, st := range ans.Statements {
		for _, c := range st.Citations {
			if !seen[c.Doc] {
				seen[c.Doc] = true
				cited = append(cited, c.Doc)
			}
		}
	}
	return cited
}

// DiffLine is a word difference on one line of plain text, as git's
// --word-diff=plain writes it: [-struck-] {+added+}.
func DiffLine(ops []Op) string {
	var b strings.Builder
	for i, op := range ops {
		if i > 0 {
			b.WriteByte(' ')
		}
		t := textproc.OneLine(op.Text)
		switch op.Kind {
		case Delete:
			b.WriteString("[-" + t + "-]")
		case Insert:
			b.WriteString("{+" + t + "+}")
		default:
			b.WriteString(t)
		}
	}
	return b.String()
}

// ThreadProvenance is Provenance for a thread's answers, in one: every
// version any of them cites, once, and each changed or dropped citation
// with the answer it belongs to ("answer 2, statement 1, citation 1: …").
// Nil when none cites anything.
func ThreadProvenance(infos []docstore.DocInfo, answers []*citations.Answer, newer Newer) (*citations.Provenance, error) {
	var out *citations.Provenance
	seen := map[docstore.DocID]bool{}
	for i, ans := range answers {
		p, err := Provenance(infos, ans, newer)
		if err != nil || p == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		if out == nil {
			out = &citations.Provenance{Versions: []citations.VersionCited{}}
		}
		for _, v := range p.Versions {
			if !seen[v.Doc] {
				seen[v.Doc] = true
				out.Versions = append(out.Versions, v)
			}
		}
		if p.Changed == nil {
			continue
		}
		if out.Changed == nil {
			out.Changed = &citations.EvidenceChange{Recheck: "citelens answers --stale"}
		}
		for _, c := range p.Changed.Changes {
			c.Answer = i + 1
			c.Line = fmt.Sprintf("answer %d, %s", i+1, c.Line)
			out.Changed.Changes = append(out.Changed.Changes, c)
		}
	}
	return out, nil
}
