package citations

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Realistic model outputs, written the way LongCite-style models write:
// blank lines between statements, list items, an uncited introduction and
// conclusion, several ranges in one <cite>.
var modelOutputs = []string{
	// LAC-S over the HotpotQA sample.
	"<statement>Based on the document, both Scott Derrickson and Ed Wood were American:<cite></cite></statement>\n\n" +
		"<statement>- Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer who lives in Los Angeles.<cite>[5-6]</cite></statement>\n\n" +
		"<statement>- Edward Davis Wood Jr. (1924–1978) was an American filmmaker, actor, writer, producer, and director.<cite>[18-18]</cite></statement>\n\n" +
		"<statement>So yes, they were of the same nationality.<cite></cite></statement>",
	// A model that lost the first '<', forgot a </cite>, and trailed off.
	"statement>Tyler Bates scored films such as \"Dawn of the Dead\" and \"300\".<cite>[11-12][14]</statement>\n" +
		"<statement>He also collaborated with Scott Derrickson.<cite>[13-13]</cite></statement>\n" +
		"Overall he works across film, television and video games, and plays guitar for Marilyn Manson.\n" +
		"<statement>He produced \"The Pale Emperor\" <cite>[15-15]</cite>",
	// Chunk-level citations (CoF step 2, Figure 12).
	"<statement>Shirley Temple starred as Corliss Archer in Kiss and Tell (1945).<cite>[3]</cite></statement> " +
		"<statement>As an adult she served as Chief of Protocol of the United States.<cite>[1][2]</cite></statement>",
	// Messy: stray tags, maths, unknown tags, garbled cites, CJK.
	"Here is what I found:\n<statement>The ratio is x < y and a<b for <b>all</b> cases.<cite>[C3-C5], [7 – 9] see [5-]</cite></statement>" +
		"</statement><statement><statement>第二个陈述。<cite>[20-21]</cite></statement>< statement >Spaced tags < / cite ></statement >",
}

func TestParseBasic(t *testing.T) {
	t.Parallel()
	got := Parse(modelOutputs[0])
	want := []RawStatement{
		{Text: "Based on the document, both Scott Derrickson and Ed Wood were American:", Tagged: true},
		{Text: "- Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer who lives in Los Angeles.", Refs: []Ref{{5, 6}}, Tagged: true},
		{Text: "- Edward Davis Wood Jr. (1924–1978) was an American filmmaker, actor, writer, producer, and director.", Refs: []Ref{{18, 18}}, Tagged: true},
		{Text: "So yes, they were of the same nationality.", Tagged: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%#v\nwant\n%#v", got, want)
	}
}

func TestParseTolerance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []RawStatement
	}{
		{"lost '<' at start, missing </cite>, outside text, unclosed at end", modelOutputs[1], []RawStatement{
			{Text: `Tyler Bates scored films such as "Dawn of the Dead" and "300".`, Refs: []Ref{{11, 12}, {14, 14}}, Tagged: true},
			{Text: "He also collaborated with Scott Derrickson.", Refs: []Ref{{13, 13}}, Tagged: true},
			{Text: "Overall he works across film, television and video games, and plays guitar for Marilyn Manson."},
			{Text: `He produced "The Pale Emperor"`, Refs: []Ref{{15, 15}}, Tagged: true, Unclosed: true},
		}},
		{"chunk citations", modelOutputs[2], []RawStatement{
			{Text: "Shirley Temple starred as Corliss Archer in Kiss and Tell (1945).", Refs: []Ref{{3, 3}}, Tagged: true},
			{Text: "As an adult she served as Chief of Protocol of the United States.", Refs: []Ref{{1, 1}, {2, 2}}, Tagged: true},
		}},
		{"messy", modelOutputs[3], []RawStatement{
			{Text: "Here is what I found:"},
			{Text: "The ratio is x < y and a<b for <b>all</b> cases.", Refs: []Ref{{3, 5}, {7, 9}}, Tagged: true, Garbled: []string{"see", "[5-]"}},
			{Text: "第二个陈述。", Refs: []Ref{{20, 21}}, Tagged: true},
			{Text: "Spaced tags", Tagged: true},
		}},
		{"short outside text is dropped, as the reference does", "ok.\n<statement>A.<cite></cite></statement>\nDone.", []RawStatement{
			{Text: "A.", Tagged: true},
		}},
		{"outside text longer than five characters is kept", "Hello!\n<statement>A.<cite></cite></statement>", []RawStatement{
			{Text: "Hello!"},
			{Text: "A.", Tagged: true},
		}},
		{"five runes, not bytes", "éééééé<statement>A</statement>ééééé", []RawStatement{
			{Text: "éééééé"},
			{Text: "A", Tagged: true},
		}},
		{"text after the cite stays in the statement", "<statement>Before <cite>[1]</cite>after.</statement>", []RawStatement{
			{Text: "Before after.", Refs: []Ref{{1, 1}}, Tagged: true},
		}},
		{"two cites", "<statement>A<cite>[1]</cite> B<cite>[2-3]</cite></statement>", []RawStatement{
			{Text: "A B", Refs: []Ref{{1, 1}, {2, 3}}, Tagged: true},
		}},
		{"missing </statement> before the next <statement>", "<statement>One.<cite>[1]</cite><statement>Two.</statement>", []RawStatement{
			{Text: "One.", Refs: []Ref{{1, 1}}, Tagged: true, Unclosed: true},
			{Text: "Two.", Tagged: true},
		}},
		{"stray </statement> closes text without an opening tag", "Some claim here</statement>", []RawStatement{
			{Text: "Some claim here", Tagged: true},
		}},
		{"unknown and broken tags are text", "<statement>Use <citation> and <stat> or <statements> and </ci>.</statement>", []RawStatement{
			{Text: "Use <citation> and <stat> or <statements> and </ci>.", Tagged: true},
		}},
		{"upper case tags", "<STATEMENT>Loud.<CITE>[2]</CITE></STATEMENT>", []RawStatement{
			{Text: "Loud.", Refs: []Ref{{2, 2}}, Tagged: true},
		}},
		{"tag cut off at the end stays text", "<statement>Unfinished</stat", []RawStatement{
			{Text: "Unfinished</stat", Tagged: true, Unclosed: true},
		}},
		{"unclosed bracket", "<statement>X<cite>[3-4</cite></statement>", []RawStatement{
			{Text: "X", Tagged: true, Garbled: []string{"[3-4"}},
		}},
		{"empty brackets and commas", "<statement>X<cite>[] [3, ] [4,5-6]</cite></statement>", []RawStatement{
			{Text: "X", Refs: []Ref{{3, 3}, {4, 4}, {5, 6}}, Tagged: true},
		}},
		{"long garbled items are cut", "<statement>X<cite>[see the first paragraph of the document for details]</cite></statement>", []RawStatement{
			{Text: "X", Tagged: true, Garbled: []string{"[see the first paragraph of the document…"}},
		}},
		{"overlong number", "<statement>X<cite>[12345678901]</cite></statement>", []RawStatement{
			{Text: "X", Tagged: true, Garbled: []string{"[12345678901]"}},
		}},
		{"statement> not at the start is text", "A statement>B", []RawStatement{
			{Text: "A statement>B"},
		}},
		{"leading whitespace before a lost '<'", "\n statement>X</statement>", []RawStatement{
			{Text: "X", Tagged: true},
		}},
		{"only whitespace", " \n\t ", nil},
		{"empty", "", nil},
		{"statement with only a cite keeps its citations", "<statement><cite>[7]</cite></statement>", []RawStatement{
			{Refs: []Ref{{7, 7}}, Tagged: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse(%q)\n got %#v\nwant %#v", tt.in, got, tt.want)
			}
		})
	}
}

// TestStreamingEmitsOnClose checks that a statement comes out exactly when
// its </statement> completes, not before and not later.
func TestStreamingEmitsOnClose(t *testing.T) {
	t.Parallel()
	in := "<statement>A.<cite>[1]</cite></statement>\n<statement>B.</statement>"
	var p Parser
	end := strings.Index(in, "</statement>") + len("</statement>")
	for i := 0; i < len(in); i++ {
		out := p.Write(in[i : i+1])
		switch {
		case i+1 == end:
			if len(out) != 1 || out[0].Text != "A." {
				t.Fatalf("byte %d completes the first </statement>, got %+v", i, out)
			}
		case i+1 == len(in):
			if len(out) != 1 || out[0].Text != "B." {
				t.Fatalf("last byte completes the second </statement>, got %+v", out)
			}
		default:
			if len(out) != 0 {
				t.Fatalf("byte %d (%q) emitted %+v", i, in[i], out)
			}
		}
	}
	if out := p.Close(); len(out) != 0 {
		t.Fatalf("Close emitted %+v", out)
	}
}

func TestParserReusableAfterClose(t *testing.T) {
	t.Parallel()
	var p Parser
	p.Write("statement>First<cite>[1")
	first := p.Close()
	second := append(p.Write(modelOutputs[0]), p.Close()...)
	if len(first) != 1 || first[0].Text != "First" {
		t.Fatalf("first stream: %+v", first)
	}
	if !reflect.DeepEqual(second, Parse(modelOutputs[0])) {
		t.Fatalf("second stream differs from a fresh parse: %+v", second)
	}
}

// parseSplit feeds in at the given cut points.
func parseSplit(in string, cuts []int) []RawStatement {
	var p Parser
	var out []RawStatement
	prev := 0
	for _, c := range cuts {
		out = append(out, p.Write(in[prev:c])...)
		prev = c
	}
	out = append(out, p.Write(in[prev:])...)
	return append(out, p.Close()...)
}

func randomCuts(r *rand.Rand, n int) []int {
	if n == 0 {
		return nil
	}
	k := r.IntN(min(n, 256) + 1)
	cuts := make([]int, k)
	for i := range cuts {
		cuts[i] = r.IntN(n + 1)
	}
	slices.Sort(cuts)
	return cuts
}

// TestSplitInvariance is the property: for random splits of realistic
// outputs — including one byte at a time and cuts inside tags and
// multi-byte characters — the statements equal the one-piece parse.
func TestSplitInvariance(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i, in := range modelOutputs {
		want := Parse(in)
		every := make([]int, len(in))
		for j := range every {
			every[j] = j
		}
		if got := parseSplit(in, every); !reflect.DeepEqual(got, want) {
			t.Fatalf("output %d byte by byte:\n got %#v\nwant %#v", i, got, want)
		}
		for range 2000 {
			cuts := randomCuts(r, len(in))
			if got := parseSplit(in, cuts); !reflect.DeepEqual(got, want) {
				t.Fatalf("output %d cut at %v:\n got %#v\nwant %#v", i, cuts, got, want)
			}
		}
	}
}

func FuzzParser(f *testing.F) {
	for _, s := range modelOutputs {
		f.Add(s, uint64(7))
	}
	f.Add("statement>", uint64(1))
	f.Add("<statement><cite>[1-", uint64(3))
	f.Add("```json\n{\"answer\": \"<statement>A<cite>[1]</cite></statement>\"}\n```", uint64(2))
	f.Add("Plain [3]. Text 【4-5】, more. [x]\n\nNext.", uint64(4))
	corpus, _ := filepath.Glob(filepath.Join("..", "testdata", "citations", "tolerance", "*.txt"))
	for _, path := range corpus {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(string(b), uint64(len(b)))
		}
	}
	f.Add("<<statement>>< / cite >[9]</statement", uint64(5))
	f.Fuzz(func(t *testing.T, in string, seed uint64) {
		want := Parse(in)
		r := rand.New(rand.NewPCG(seed, seed>>1))
		cuts := randomCuts(r, len(in))
		got := parseSplit(in, cuts)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cut at %v:\n got %#v\nwant %#v", cuts, got, want)
		}
		if len(in) <= 4096 {
			var p Parser
			var one []RawStatement
			for i := 0; i < len(in); i++ {
				one = append(one, p.Write(in[i:i+1])...)
			}
			if one = append(one, p.Close()...); !reflect.DeepEqual(one, want) {
				t.Fatalf("byte by byte:\n got %#v\nwant %#v", one, want)
			}
		}
		for _, s := range got {
			if utf8.ValidString(in) && !utf8.ValidString(s.Text) {
				t.Fatalf("valid input gave invalid statement text %q", s.Text)
			}
			for _, g := range s.Garbled {
				if len(g) > maxCiteToken+len("…")+2 {
					t.Fatalf("garbled entry too long: %q", g)
				}
			}
		}
	})
}

// benchOutput is about 1 MB of model text in LongCite's format.
func benchOutput() string {
	var b strings.Builder
	r := rand.New(rand.NewPCG(3, 4))
	sentences := []string{
		"Based on the document, the report examines the agency's acquisition programs:",
		"- Of the 28 programs reviewed, only 10 were on track to meet their schedule and cost goals.",
		"- The most common reasons for schedule slips were new requirements, technical challenges, and external factors like staffing shortages or funding cuts.",
		"- Some programs had cost breaches due to scope increases, technical challenges, and contractor labor costs.",
		"In summary, the agency has taken steps to improve its policies, but more is needed.",
	}
	for b.Len() < 1<<20 {
		s := sentences[r.IntN(len(sentences))]
		b.WriteString("<statement>")
		b.WriteString(s)
		b.WriteString("<cite>")
		for range r.IntN(4) {
			a := r.IntN(3000)
			fmt.Fprintf(&b, "[%d-%d]", a, a+r.IntN(4))
		}
		b.WriteString("</cite></statement>\n\n")
	}
	return b.String()
}

func BenchmarkParserOnePiece(b *testing.B) {
	in := benchOutput()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		Parse(in)
	}
}

func BenchmarkParserDeltas(b *testing.B) {
	in := benchOutput()
	// Realistic streaming: 4-20 byte deltas, as a served model sends tokens.
	r := rand.New(rand.NewPCG(5, 6))
	var deltas []string
	for i := 0; i < len(in); {
		n := min(4+r.IntN(17), len(in)-i)
		deltas = append(deltas, in[i:i+n])
		i += n
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		var p Parser
		for _, d := range deltas {
			p.Write(d)
		}
		p.Close()
	}
}

func BenchmarkParserByteByByte(b *testing.B) {
	in := benchOutput()[:64<<10]
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		var p Parser
		for i := 0; i < len(in); i++ {
			p.Write(in[i : i+1])
		}
		p.Close()
	}
}
