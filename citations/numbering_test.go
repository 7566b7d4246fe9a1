package citations

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
)

type spanKey struct {
	Doc         docstore.DocID
	First, Last int
}

func keys(spans []Span) []spanKey {
	out := []spanKey{}
	for _, s := range spans {
		out = append(out, spanKey{s.Doc, s.First, s.Last})
	}
	return out
}

// checkSpans verifies that every span quotes exactly its document's bytes.
func checkSpans(t *testing.T, docs map[docstore.DocID]*docstore.Document, spans []Span) {
	t.Helper()
	for _, s := range spans {
		d := docs[s.Doc]
		if s.Start != int(d.Sentences[s.First].Start) || s.End != int(d.Sentences[s.Last].End) {
			t.Errorf("span %+v: bytes %d-%d do not match sentences %d-%d", s, s.Start, s.End, s.First, s.Last)
		}
		if s.Text != d.Text[s.Start:s.End] {
			t.Errorf("span text %q is not the document's bytes %d-%d", s.Text, s.Start, s.End)
		}
		if s.DocName != d.Name {
			t.Errorf("span doc name %q, want %q", s.DocName, d.Name)
		}
	}
}

func TestSentenceNumberingDense(t *testing.T) {
	t.Parallel()
	a, b := samples(t)
	docs := map[docstore.DocID]*docstore.Document{a.ID: a, b.ID: b}
	n, err := NewSentenceNumbering(Part{Doc: a}, Part{Doc: b})
	if err != nil {
		t.Fatal(err)
	}
	if n.Len() != 73 || n.Mode() != SentenceMode {
		t.Fatalf("Len %d, mode %v; want 73 sentence-level numbers", n.Len(), n.Mode())
	}
	for num, want := range map[int]spanKey{0: {a.ID, 0, 0}, 45: {a.ID, 45, 45}, 46: {b.ID, 0, 0}, 72: {b.ID, 26, 26}} {
		u, ok := n.Lookup(num)
		if !ok || u.Doc.ID != want.Doc || u.First != want.First || u.Last != want.Last {
			t.Errorf("Lookup(%d) = %+v, %v; want %+v", num, u, ok, want)
		}
	}
	if _, ok := n.Lookup(73); ok {
		t.Error("Lookup(73) succeeded past the last sentence")
	}
	if num, ok := n.Number(b.ID, 24); !ok || num != 70 {
		t.Errorf("Number(b, 24) = %d, %v; want 70", num, ok)
	}
	count := 0
	n.Each(func(u Unit) bool {
		if u.Num != count {
			t.Fatalf("Each gave number %d at position %d", u.Num, count)
		}
		count++
		return true
	})
	if count != 73 {
		t.Errorf("Each visited %d numbers, want 73", count)
	}

	tests := []struct {
		name  string
		refs  []Ref
		cap   int
		want  []spanKey
		warns []string // substrings, in order
	}{
		{"one range", []Ref{{5, 6}}, 0, []spanKey{{a.ID, 5, 6}}, nil},
		{"single sentence", []Ref{{21, 21}}, 0, []spanKey{{a.ID, 21, 21}}, nil},
		{"end before start is dropped", []Ref{{6, 5}}, 0, nil, []string{"citation [6-5] dropped: the range ends before it starts"}},
		{"start beyond the last is dropped", []Ref{{80, 90}}, 0, nil, []string{"citation [80-90] dropped: the sentences are numbered 0 to 72"}},
		{"end beyond the last is clamped", []Ref{{70, 90}}, 0, []spanKey{{b.ID, 24, 26}}, []string{"citation [70-90] cut to [70-72]"}},
		{"adjacent ranges merge", []Ref{{5, 5}, {6, 6}, {7, 7}}, 0, []spanKey{{a.ID, 5, 7}}, nil},
		{"overlapping ranges merge", []Ref{{5, 6}, {6, 7}, {6, 6}}, 0, []spanKey{{a.ID, 5, 7}}, nil},
		{"backward ranges stay apart", []Ref{{7, 8}, {5, 6}}, 0, []spanKey{{a.ID, 7, 8}, {a.ID, 5, 6}}, nil},
		{"a range over a document boundary splits", []Ref{{44, 47}}, 0, []spanKey{{a.ID, 44, 45}, {b.ID, 0, 1}}, nil},
		{"cap after merging", []Ref{{1, 1}, {2, 2}, {5, 5}, {9, 9}, {12, 12}, {15, 15}}, 3,
			[]spanKey{{a.ID, 1, 2}, {a.ID, 5, 5}, {a.ID, 9, 9}}, []string{"2 more citations dropped: at most 3 are kept per statement"}},
		{"no cap", []Ref{{1, 1}, {3, 3}, {5, 5}, {7, 7}}, 0, []spanKey{{a.ID, 1, 1}, {a.ID, 3, 3}, {a.ID, 5, 5}, {a.ID, 7, 7}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, warns := n.Resolve(tt.refs, ResolveOptions{MaxCitations: tt.cap})
			if got := keys(spans); !reflect.DeepEqual(got, append([]spanKey{}, tt.want...)) {
				t.Errorf("spans %+v, want %+v", got, tt.want)
			}
			checkWarnings(t, warns, tt.warns)
			checkSpans(t, docs, spans)
		})
	}
}

func checkWarnings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d like %q", got, len(want), want)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("warning %q does not say %q", got[i], want[i])
		}
	}
}

func TestSentenceNumberingSparse(t *testing.T) {
	t.Parallel()
	a, b := samples(t)
	docs := map[docstore.DocID]*docstore.Document{a.ID: a, b.ID: b}
	// Retrieval showed these, in score order, with a repeat.
	n, err := NewSentenceNumbering(Part{Doc: a, Sentences: []int{21, 5, 6, 7, 5}}, Part{Doc: b, Sentences: []int{7, 6}})
	if err != nil {
		t.Fatal(err)
	}
	if n.Len() != 6 {
		t.Fatalf("Len %d, want 6 (5,6,7,21,52,53)", n.Len())
	}
	var nums []int
	n.Each(func(u Unit) bool { nums = append(nums, u.Num); return true })
	if !reflect.DeepEqual(nums, []int{5, 6, 7, 21, 52, 53}) {
		t.Fatalf("numbers %v", nums)
	}
	if _, ok := n.Lookup(8); ok {
		t.Error("Lookup(8) found a sentence that was not shown")
	}
	tests := []struct {
		name  string
		refs  []Ref
		want  []spanKey
		warns []string
	}{
		{"shown", []Ref{{6, 7}, {52, 53}}, []spanKey{{a.ID, 6, 7}, {b.ID, 6, 7}}, nil},
		{"not shown", []Ref{{8, 8}}, nil, []string{"citation [8] dropped: no sentence in it was shown to the model"}},
		{"partly shown", []Ref{{6, 9}}, []spanKey{{a.ID, 6, 7}}, []string{"citation [6-9]: 2 of its sentences were not shown"}},
		{"below the first shown", []Ref{{1, 5}}, []spanKey{{a.ID, 5, 5}}, []string{"citation [1-5]: 4 of its sentences were not shown"}},
		{"beyond the last shown", []Ref{{53, 60}}, []spanKey{{b.ID, 7, 7}}, []string{"citation [53-60] cut to [53]: the sentences shown to the model run from 5 to 53"}},
		{"gap inside a range", []Ref{{5, 21}}, []spanKey{{a.ID, 5, 7}, {a.ID, 21, 21}}, []string{"13 of its sentences were not shown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, warns := n.Resolve(tt.refs, ResolveOptions{})
			if got := keys(spans); !reflect.DeepEqual(got, append([]spanKey{}, tt.want...)) {
				t.Errorf("spans %+v, want %+v", got, tt.want)
			}
			checkWarnings(t, warns, tt.warns)
			checkSpans(t, docs, spans)
		})
	}

	if _, err := NewSentenceNumbering(Part{Doc: a, Sentences: []int{3, 46}}); !errors.Is(err, ErrBadNumbering) {
		t.Errorf("sentence 46 of a 46-sentence document: err %v, want ErrBadNumbering", err)
	}
	if _, err := NewSentenceNumbering(Part{}); !errors.Is(err, ErrBadNumbering) {
		t.Errorf("part without a document: err %v", err)
	}
	empty, err := NewSentenceNumbering(Part{Doc: a, Sentences: []int{}})
	if err != nil || empty.Len() != 0 {
		t.Fatalf("empty selection: %v, %d numbers", err, empty.Len())
	}
	spans, warns := empty.Resolve([]Ref{{1, 2}}, ResolveOptions{})
	if len(spans) != 0 || len(warns) != 1 {
		t.Errorf("empty numbering resolved to %v, %q", spans, warns)
	}
}

func TestLocalNumbering(t *testing.T) {
	t.Parallel()
	a, b := samples(t)
	// CoF's fine step: the cited chunks' sentences, numbered afresh.
	n, err := NewLocalNumbering(0, Part{Doc: a, Sentences: []int{21, 5, 6}}, Part{Doc: b, Sentences: []int{24}})
	if err != nil {
		t.Fatal(err)
	}
	spans, warns := n.Resolve([]Ref{{0, 2}, {3, 3}, {4, 4}}, ResolveOptions{})
	want := []spanKey{{a.ID, 5, 6}, {a.ID, 21, 21}, {b.ID, 24, 24}}
	if got := keys(spans); !reflect.DeepEqual(got, want) {
		t.Errorf("spans %+v, want %+v", got, want)
	}
	checkWarnings(t, warns, []string{"citation [4] dropped: the sentences are numbered 0 to 3"})
}

func TestChunkNumbering(t *testing.T) {
	t.Parallel()
	a, b := samples(t)
	docs := map[docstore.DocID]*docstore.Document{a.ID: a, b.ID: b}
	n, err := NewChunkNumbering(ChunkOf(a, 1), ChunkOf(b, 1), ChunkOf(b, 2), ChunkOf(b, 4))
	if err != nil {
		t.Fatal(err)
	}
	if n.Mode() != ChunkMode || n.Len() != 4 {
		t.Fatalf("mode %v, %d numbers", n.Mode(), n.Len())
	}
	u, ok := n.Lookup(2)
	if !ok || u.Doc != b || u.First != 5 || u.Last != 9 {
		t.Fatalf("Lookup(2) = %+v", u)
	}
	tests := []struct {
		name  string
		refs  []Ref
		cap   int
		want  []spanKey
		warns []string
	}{
		{"one chunk", []Ref{{1, 1}}, 0, []spanKey{{a.ID, 5, 9}}, nil},
		{"neighbouring chunks merge", []Ref{{2, 2}, {3, 3}}, 0, []spanKey{{b.ID, 5, 14}}, nil},
		{"distant chunks stay apart", []Ref{{3, 3}, {4, 4}}, 0, []spanKey{{b.ID, 10, 14}, {b.ID, 20, 24}}, nil},
		{"chunks count from 1", []Ref{{0, 0}}, 0, nil, []string{"citation [0] dropped: the snippets are numbered 1 to 4"}},
		{"past the last chunk", []Ref{{5, 5}}, 0, nil, []string{"dropped: the snippets are numbered 1 to 4"}},
		{"cap", []Ref{{1, 1}, {2, 2}, {4, 4}}, 2, []spanKey{{a.ID, 5, 9}, {b.ID, 5, 9}}, []string{"1 more citation dropped"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, warns := n.Resolve(tt.refs, ResolveOptions{MaxCitations: tt.cap})
			if got := keys(spans); !reflect.DeepEqual(got, append([]spanKey{}, tt.want...)) {
				t.Errorf("spans %+v, want %+v", got, tt.want)
			}
			checkWarnings(t, warns, tt.warns)
			checkSpans(t, docs, spans)
		})
	}
	if _, err := NewChunkNumbering(ChunkPart{Doc: a, First: 40, Last: 50}); !errors.Is(err, ErrBadNumbering) {
		t.Errorf("chunk past the end: err %v", err)
	}
}

func TestSpanPage(t *testing.T) {
	t.Parallel()
	d := handDoc("paged", 2, "First page one.", "First page two.", "Second page one.", "Second page two.")
	n, err := NewSentenceNumbering(Part{Doc: d})
	if err != nil {
		t.Fatal(err)
	}
	spans, _ := n.Resolve([]Ref{{1, 2}, {3, 3}}, ResolveOptions{})
	if len(spans) != 1 || spans[0].Page != 1 || spans[0].Text != "First page two. Second page one. Second page two." {
		t.Fatalf("spans %+v", spans)
	}
	spans, _ = n.Resolve([]Ref{{3, 3}}, ResolveOptions{})
	if spans[0].Page != 2 {
		t.Errorf("sentence 3 is on page 2, span says %d", spans[0].Page)
	}
	// A sentence table without pages falls back to PageStarts.
	d.Sentences[3].Page = 0
	if s := SpanOf(d, 3, 3); s.Page != 2 {
		t.Errorf("page from PageStarts: %d, want 2", s.Page)
	}
}

func TestNumberingStatement(t *testing.T) {
	t.Parallel()
	a, _ := samples(t)
	n, _ := NewSentenceNumbering(Part{Doc: a})
	raws := Parse("<statement>Derrickson is American.<cite>[5-5][see above][200-201]</cite></statement><statement>Intro:<cite></cite></statement>")
	st := n.Statement(raws[0], ResolveOptions{MaxCitations: LongBenchCiteCap})
	if st.Text != "Derrickson is American." || len(st.Citations) != 1 || st.Citations[0].First != 5 {
		t.Fatalf("statement %+v", st)
	}
	checkWarnings(t, st.Warnings, []string{`citation "[see above]" ignored`, "citation [200-201] dropped"})
	un := n.Statement(raws[1], ResolveOptions{})
	if un.Citations == nil || len(un.Citations) != 0 || un.Warnings != nil {
		t.Errorf("uncited statement %+v: want empty, non-nil citations and no warnings", un)
	}
}

// hugeDoc is a document the size of a 2,400-page manual: 150,000 sentences.
func hugeDoc() *docstore.Document {
	const n = 150_000
	d := &docstore.Document{DocInfo: docstore.DocInfo{ID: "huge", Name: "huge.txt"}, PageStarts: []int32{0}}
	var b strings.Builder
	for i := range n {
		start := b.Len()
		fmt.Fprintf(&b, "Sentence %d says something. ", i)
		d.Sentences = append(d.Sentences, docstore.Sentence{Start: int32(start), End: int32(b.Len() - 1), Page: int32(1 + i/60)})
	}
	d.Text = b.String()
	return d
}

func TestNumberingIsCheap(t *testing.T) {
	d := hugeDoc()
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := NewSentenceNumbering(Part{Doc: d}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5 {
		t.Errorf("numbering 150k sentences took %.0f allocations; want a small table", allocs)
	}
	n, _ := NewSentenceNumbering(Part{Doc: d})
	spans, _ := n.Resolve([]Ref{{149_998, 150_500}}, ResolveOptions{})
	if len(spans) != 1 || spans[0].Text != "Sentence 149998 says something. Sentence 149999 says something." {
		t.Fatalf("spans %+v", spans)
	}
}

func BenchmarkNewSentenceNumbering(b *testing.B) {
	d := hugeDoc()
	for b.Loop() {
		NewSentenceNumbering(Part{Doc: d})
	}
}

func BenchmarkResolve(b *testing.B) {
	d := hugeDoc()
	sel := make([]int, 0, 2000)
	for i := 0; i < len(d.Sentences); i += 75 {
		sel = append(sel, i, i+1)
	}
	n, _ := NewSentenceNumbering(Part{Doc: d, Sentences: sel})
	refs := []Ref{{75, 76}, {150, 151}, {90_000, 90_001}, {149_925, 149_926}}
	for b.Loop() {
		n.Resolve(refs, ResolveOptions{MaxCitations: 3})
	}
}
