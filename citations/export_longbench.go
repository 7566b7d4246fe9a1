package citations

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// DocLookup returns a stored document (with its text and sentences) by ID.
type DocLookup func(id docstore.DocID) (*docstore.Document, error)

// LongBenchCiteRecord is one answer in the shape THUDM/LongCite's
// LongBench-Cite scripts read (pred_one_shot.py writes it; eval_cite.py
// and auto_scorer.py read "query", "prediction" and "statements", and
// delete "answer" and "few_shot_scores", so those are always present).
type LongBenchCiteRecord struct {
	Idx           string                   `json:"idx"`
	Dataset       string                   `json:"dataset"`
	Query         string                   `json:"query"`
	Answer        []string                 `json:"answer"`
	FewShotScores []float64                `json:"few_shot_scores"`
	Prediction    string                   `json:"prediction"`
	Statements    []LongBenchCiteStatement `json:"statements"`
}

// LongBenchCiteStatement is one statement with its citations.
type LongBenchCiteStatement struct {
	Statement string                  `json:"statement"`
	Citation  []LongBenchCiteCitation `json:"citation"`
}

// LongBenchCiteCitation is one citation. StSent/EdSent are the sentence
// numbers the LAC-S prompt uses: global indices over the concatenation of
// the answer's documents in scope order. StartChar/EndChar count characters
// (Unicode code points, as Python's str does), not bytes, into the cited
// document's text; Doc names that document (an addition the scripts
// ignore — with one document, the only case LongBench-Cite has, the
// offsets are offsets into the context).
type LongBenchCiteCitation struct {
	StSent    int    `json:"st_sent"`
	EdSent    int    `json:"ed_sent"`
	StartChar int    `json:"start_char"`
	EndChar   int    `json:"end_char"`
	Cite      string `json:"cite"`
	Doc       string `json:"doc"`
}

// LongBenchCiteDataset is the "dataset" field of exported records.
const LongBenchCiteDataset = "citelens"

// NewLongBenchCiteRecord converts a to LongBench-Cite's shape. docs supplies
// the cited documents, needed for sentence numbering and character offsets.
// The global numbering follows a.Docs; when a.Docs is empty, the cited
// documents in order of first citation.
func NewLongBenchCiteRecord(a *Answer, docs DocLookup) (LongBenchCiteRecord, error) {
	rec := LongBenchCiteRecord{
		Idx: a.ID, Dataset: LongBenchCiteDataset, Query: a.Question,
		Answer: []string{}, FewShotScores: []float64{}, Statements: []LongBenchCiteStatement{},
	}
	order := make([]docstore.DocID, 0, len(a.Docs))
	for _, d := range a.Docs {
		order = append(order, d.ID)
	}
	if len(order) == 0 {
		for _, s := range a.Statements {
			for _, c := range s.Citations {
				if !slices.Contains(order, c.Doc) {
					order = append(order, c.Doc)
				}
			}
		}
	}
	// Load what is cited, and the documents before it in the numbering.
	cited := map[docstore.DocID]bool{}
	lastCited := -1
	for _, s := range a.Statements {
		for _, c := range s.Citations {
			cited[c.Doc] = true
			i := slices.Index(order, c.Doc)
			if i < 0 {
				return rec, fmt.Errorf("%w: %q is cited but not in the answer's scope", ErrMissingDoc, c.DocName)
			}
			lastCited = max(lastCited, i)
		}
	}
	offset := map[docstore.DocID]int{}
	loaded := map[docstore.DocID]*docstore.Document{}
	total := 0
	for _, id := range order[:lastCited+1] {
		d, err := docs(id)
		if err != nil {
			return rec, fmt.Errorf("%w: %s: %w", ErrMissingDoc, id, err)
		}
		if d == nil {
			return rec, fmt.Errorf("%w: %s", ErrMissingDoc, id)
		}
		if _, seen := offset[id]; !seen {
			offset[id] = total
			total += len(d.Sentences)
		}
		loaded[id] = d
	}
	chars := map[docstore.DocID]map[int]int{}
	for id := range cited {
		var offs []int
		for _, s := range a.Statements {
			for _, c := range s.Citations {
				if c.Doc == id {
					offs = append(offs, c.Start, c.End)
				}
			}
		}
		m, err := runeOffsets(loaded[id].Text, offs)
		if err != nil {
			return rec, fmt.Errorf("%w: %s: %w", ErrMissingDoc, id, err)
		}
		chars[id] = m
	}

	var pred strings.Builder
	for i, s := range a.Statements {
		ls := LongBenchCiteStatement{Statement: s.Text, Citation: []LongBenchCiteCitation{}}
		if i > 0 {
			pred.WriteString("\n\n")
		}
		pred.WriteString("<statement>")
		pred.WriteString(s.Text)
		pred.WriteString("<cite>")
		for _, c := range s.Citations {
			lc := LongBenchCiteCitation{
				StSent: offset[c.Doc] + c.First, EdSent: offset[c.Doc] + c.Last,
				StartChar: chars[c.Doc][c.Start], EndChar: chars[c.Doc][c.End],
				Cite: c.Text, Doc: c.DocName,
			}
			ls.Citation = append(ls.Citation, lc)
			fmt.Fprintf(&pred, "[%d-%d]", lc.StSent, lc.EdSent)
		}
		pred.WriteString("</cite></statement>")
		rec.Statements = append(rec.Statements, ls)
	}
	rec.Prediction = pred.String()
	return rec, nil
}

// runeOffsets maps each byte offset in offs to its code-point offset in
// text, in one pass.
func runeOffsets(text string, offs []int) (map[int]int, error) {
	sorted := slices.Clone(offs)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	m := make(map[int]int, len(sorted))
	pos, runes := 0, 0
	for _, o := range sorted {
		if o < 0 || o > len(text) {
			return nil, fmt.Errorf("byte offset %d is outside the document's %d bytes", o, len(text))
		}
		runes += utf8.RuneCountInString(text[pos:o])
		pos = o
		m[o] = runes
	}
	return m, nil
}

// WriteLongBenchCite writes answers as the JSON array LongBench-Cite's
// eval_cite.py loads (json.load of a list of records).
func WriteLongBenchCite(w io.Writer, docs DocLookup, answers ...*Answer) error {
	recs := make([]LongBenchCiteRecord, 0, len(answers))
	for _, a := range answers {
		r, err := NewLongBenchCiteRecord(a, docs)
		if err != nil {
			return err
		}
		recs = append(recs, r)
	}
	// "<statement>" stays as written, as ensure_ascii=False does; C1 and
	// bidi controls are escaped (textproc.WriteJSON).
	if err := textproc.WriteJSON(w, recs, "  "); err != nil {
		return fmt.Errorf("writing LongBench-Cite JSON: %w", err)
	}
	return nil
}
