package citations

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/citations")

// goldenAnswers runs the sample model outputs through the whole pipeline —
// streamed parse, resolution over a two-document numbering, offline
// verification — as the LAC-S strategy does.
func goldenAnswers(t *testing.T) (map[string]*Answer, DocLookup) {
	t.Helper()
	a, b := samples(t)
	docs := map[docstore.DocID]*docstore.Document{a.ID: a, b.ID: b}
	lookup := func(id docstore.DocID) (*docstore.Document, error) {
		if d, ok := docs[id]; ok {
			return d, nil
		}
		return nil, fmt.Errorf("no document %s", id)
	}
	n, err := NewSentenceNumbering(Part{Doc: a}, Part{Doc: b})
	if err != nil {
		t.Fatal(err)
	}
	questions := map[string]string{
		"derrickson": "Were Scott Derrickson and Ed Wood of the same nationality?",
		"temple":     "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
	}
	out := map[string]*Answer{}
	for name, q := range questions {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", "citations", name+".model.txt"))
		if err != nil {
			t.Fatal(err)
		}
		ans := &Answer{
			ID: "golden-" + name, Question: q, Strategy: "longcite", Model: "LongCite-llama3.1-8b",
			Docs:   []DocRef{{ID: a.ID, Name: a.Name}, {ID: b.ID, Name: b.Name}},
			Stages: []string{"numbering 73 sentences of 2 documents", "asking LongCite-llama3.1-8b (LAC-S)", "verifying 8 citations"},
			Usage:  Usage{PromptTokens: 2958, CompletionTokens: 212, LLMCalls: 1}, Seconds: 4.2,
			Created: time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC),
		}
		var p Parser
		add := func(rs []RawStatement) {
			for _, r := range rs {
				ans.Statements = append(ans.Statements, n.Statement(r, ResolveOptions{MaxCitations: LongBenchCiteCap}))
			}
		}
		for i := 0; i < len(raw); i += 7 { // streamed, as tokens arrive
			add(p.Write(string(raw[i:min(i+7, len(raw))])))
		}
		add(p.Close())
		VerifyAnswer(ans)
		out[name] = ans
	}
	return out, lookup
}

func TestGoldenExports(t *testing.T) {
	t.Parallel()
	answers, lookup := goldenAnswers(t)
	formats := []struct {
		ext   string
		write func(*bytes.Buffer, *Answer) error
	}{
		{"md", func(w *bytes.Buffer, a *Answer) error { return WriteMarkdown(w, a) }},
		{"json", func(w *bytes.Buffer, a *Answer) error { return WriteJSON(w, a) }},
		{"html", func(w *bytes.Buffer, a *Answer) error { return WriteHTML(w, a) }},
		{"longbench.json", func(w *bytes.Buffer, a *Answer) error { return WriteLongBenchCite(w, lookup, a) }},
	}
	for _, name := range []string{"derrickson", "temple"} {
		for _, f := range formats {
			t.Run(name+"."+f.ext, func(t *testing.T) {
				var buf bytes.Buffer
				if err := f.write(&buf, answers[name]); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("..", "testdata", "citations", "answer-"+name+"."+f.ext)
				if *update {
					if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					t.Errorf("%s differs from the golden file; run with -update and review the diff.\n got:\n%s", path, buf.String())
				}
			})
		}
	}
}

// TestGoldenPipeline pins what the golden answers must contain, so an
// -update cannot silently bless a regression.
func TestGoldenPipeline(t *testing.T) {
	t.Parallel()
	answers, _ := goldenAnswers(t)
	d := answers["derrickson"]
	if len(d.Statements) != 7 {
		t.Fatalf("derrickson: %d statements, want 7", len(d.Statements))
	}
	films := d.Statements[2]
	if len(films.Citations) != 3 {
		t.Errorf("films statement keeps %d citations, want 3 (capped)", len(films.Citations))
	}
	checkWarnings(t, films.Warnings, []string{"citation [90-91] dropped", "1 more citation dropped: at most 3"})
	if got := d.Statements[1].Citations; len(got) != 1 || got[0].First != 5 || got[0].Last != 6 {
		t.Errorf("[5-5][6-6] should merge into sentences 5-6: %+v", got)
	}
	if !d.Statements[3].NeedsCitation || d.Statements[0].NeedsCitation || d.Statements[6].NeedsCitation {
		t.Errorf("needs-citation flags: intro %v, uncited fact %v, conclusion %v",
			d.Statements[0].NeedsCitation, d.Statements[3].NeedsCitation, d.Statements[6].NeedsCitation)
	}
	if v := d.Statements[4].Support[0]; v.Level != Supported {
		t.Errorf("Ed Wood's quoted biography: %+v", v)
	}
	if v := d.Statements[5].Support[0]; v.Level != Partial {
		t.Errorf("'won two Academy Awards' is not in the citation: %+v", v)
	}
	tm := answers["temple"]
	if len(tm.Statements) != 5 || tm.Statements[0].Text != `The woman who portrayed Corliss Archer in "Kiss and Tell" was Shirley Temple:` {
		t.Fatalf("temple: the lost '<' of the first statement: %+v", tm.Statements)
	}
	if c := tm.Statements[1].Citations[0]; c.Doc != "sample-b" || c.First != 24 {
		t.Errorf("global number 70 is sentence 24 of the second document: %+v", c)
	}
	for _, s := range tm.Statements[1:4] {
		for _, v := range s.Support {
			if v.Level == Unsupported {
				t.Errorf("%q: %+v", s.Text, s.Support)
			}
		}
	}
}

func TestMarkdownQuotesExactly(t *testing.T) {
	t.Parallel()
	answers, _ := goldenAnswers(t)
	for name, a := range answers {
		var buf bytes.Buffer
		if err := WriteMarkdown(&buf, a); err != nil {
			t.Fatal(err)
		}
		quotes := markdownQuotes(buf.String())
		var want []string
		for _, s := range a.Statements {
			for _, c := range s.Citations {
				want = append(want, c.Text)
			}
		}
		if !reflect.DeepEqual(quotes, want) {
			t.Errorf("%s: quotes in the Markdown, unescaped:\n%q\nwant the cited bytes:\n%q", name, quotes, want)
		}
	}
	// Escaping keeps the text: markup in a quote renders as itself.
	tricky := "# Not a heading\n1. not a list *or* _emphasis_ [link](x) <b>&amp; `code` | 2-3 \\ done!"
	a := &Answer{Question: "q", Statements: []Statement{{Text: "s", Citations: []Span{{DocName: "d", Text: tricky, Page: 1}}}}}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, a); err != nil {
		t.Fatal(err)
	}
	if q := markdownQuotes(buf.String()); len(q) != 1 || q[0] != tricky {
		t.Errorf("tricky quote came back as %q\nfrom:\n%s", q, buf.String())
	}
	if strings.Contains(buf.String(), "\n    > # Not") || strings.Contains(buf.String(), "> 1. not") {
		t.Errorf("markup left active:\n%s", buf.String())
	}
}

// markdownQuotes extracts the footnote block quotes and undoes the
// backslash escapes.
func markdownQuotes(md string) []string {
	var out []string
	var cur []string
	flush := func() {
		if cur != nil {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(md, "\n") {
		switch {
		case line == "    >":
			cur = append(cur, "")
		case strings.HasPrefix(line, "    > "):
			cur = append(cur, unescapeMD(line[len("    > "):]))
		default:
			flush()
		}
	}
	flush()
	return out
}

func unescapeMD(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] < utf8.RuneSelf && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	answers, _ := goldenAnswers(t)
	for name, a := range answers {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, a); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		// Lossless: the same content (an empty list and a missing one are
		// the same content) and the same JSON when written again.
		if !reflect.DeepEqual(normalized(back), normalized(a)) {
			t.Errorf("%s: JSON round trip lost something:\n got %+v\nwant %+v", name, back, a)
		}
		var first, again bytes.Buffer
		WriteJSON(&first, a)
		WriteJSON(&again, back)
		if !bytes.Equal(first.Bytes(), again.Bytes()) {
			t.Errorf("%s: JSON differs when written again", name)
		}
	}
	if _, err := ReadJSON(strings.NewReader("{not json")); err == nil {
		t.Error("ReadJSON accepted broken JSON")
	}
}

// normalized returns a copy of a with empty slices made nil.
func normalized(a *Answer) Answer {
	c := *a
	c.Statements = slices.Clone(a.Statements)
	for i := range c.Statements {
		st := &c.Statements[i]
		if len(st.Citations) == 0 {
			st.Citations = nil
		}
		if len(st.Support) == 0 {
			st.Support = nil
		}
		if len(st.Warnings) == 0 {
			st.Warnings = nil
		}
	}
	if len(c.Warnings) == 0 {
		c.Warnings = nil
	}
	return c
}

func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	answers, _ := goldenAnswers(t)
	a := *answers["derrickson"]
	a.Statements = append([]Statement(nil), a.Statements...)
	a.Statements = append(a.Statements, Statement{
		Text:      "Injected <script>alert(1)</script> and \x1b[31mred\x1b[0m",
		Citations: []Span{{DocName: "<img src=x>", Text: "</mark><a href=\"http://evil\">x</a>", Page: 1}},
		Support:   []Verdict{{Level: Unsupported, Judge: OfflineJudge}},
	})
	a.Plan = map[string]any{"workflow": "<b>direct</b>"}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, &a); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"<script", "<img", "<link", "@import", "url(", `href="http`, "\x1b"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, s := range a.Statements[:7] {
		for _, c := range s.Citations {
			if !strings.Contains(page, htmlEscape(c.Text)) {
				t.Errorf("quote missing from the page: %q", c.Text)
			}
		}
	}
	if !strings.Contains(page, "&lt;script&gt;") || !strings.Contains(page, "␛[31mred") {
		t.Error("model text not escaped and made printable")
	}
}

func htmlEscape(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestLongBenchCiteOffsets(t *testing.T) {
	t.Parallel()
	answers, lookup := goldenAnswers(t)
	var buf bytes.Buffer
	if err := WriteLongBenchCite(&buf, lookup, answers["derrickson"], answers["temple"]); err != nil {
		t.Fatal(err)
	}
	var recs []LongBenchCiteRecord
	if err := json.Unmarshal(buf.Bytes(), &recs); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	for _, rec := range recs {
		if rec.Answer == nil || rec.FewShotScores == nil || rec.Query == "" || !strings.Contains(rec.Prediction, "<statement>") {
			t.Errorf("record lacks what eval_cite.py reads: %+v", rec)
		}
		for _, st := range rec.Statements {
			for _, c := range st.Citation {
				var doc *docstore.Document
				for _, id := range []docstore.DocID{"sample-a", "sample-b"} {
					if d, _ := lookup(id); d.Name == c.Doc {
						doc = d
					}
				}
				runes := []rune(doc.Text) // Python's str indexing
				if got := string(runes[c.StartChar:c.EndChar]); got != c.Cite {
					t.Errorf("code points %d-%d are %q, cite is %q", c.StartChar, c.EndChar, got, c.Cite)
				}
			}
		}
	}
	// "–" before Ed Wood's biography makes bytes and code points differ.
	temple := recs[1].Statements[1].Citation[0]
	if temple.StSent != 70 || temple.EdSent != 70 {
		t.Errorf("global sentence numbers %d-%d, want 70-70", temple.StSent, temple.EdSent)
	}
	span := answers["temple"].Statements[1].Citations[0]
	if temple.StartChar == span.Start {
		t.Errorf("start_char %d equals the byte offset; the text before it has multi-byte characters", temple.StartChar)
	}

	missing := func(docstore.DocID) (*docstore.Document, error) { return nil, fmt.Errorf("gone") }
	if err := WriteLongBenchCite(&buf, missing, answers["temple"]); err == nil {
		t.Error("export without the documents succeeded")
	}
}

// TestStreamMatchesPipeline checks that Stream gives exactly what parsing,
// resolving and VerifyAnswer give on the whole text.
func TestStreamMatchesPipeline(t *testing.T) {
	t.Parallel()
	answers, _ := goldenAnswers(t)
	a, b := samples(t)
	n, _ := NewSentenceNumbering(Part{Doc: a}, Part{Doc: b})
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "citations", "derrickson.model.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStream(n, answers["derrickson"].Question, ResolveOptions{MaxCitations: LongBenchCiteCap})
	var got []Statement
	for i := 0; i < len(raw); i += 3 {
		got = append(got, s.Write(string(raw[i:min(i+3, len(raw))]))...)
	}
	got = append(got, s.Close()...)
	if !reflect.DeepEqual(got, answers["derrickson"].Statements) {
		t.Errorf("Stream:\n%+v\npipeline:\n%+v", got, answers["derrickson"].Statements)
	}
}

// TestMarkdownEscapesQuotedStatements: a statement that is the document's
// own text (as the extractive strategy writes them) is escaped, so code
// such as "> x <- 1" is not turned into Markdown; so is a model's.
func TestMarkdownEscapesQuotedStatements(t *testing.T) {
	t.Parallel()
	quote := "> HousePrice <- read.table(\"houses.data\")"
	a := &Answer{Question: "q", Statements: []Statement{
		{Text: quote, Citations: []Span{{DocName: "R-intro.pdf", Text: quote, Page: 39, First: 823, Last: 823}}},
		{Text: "A **model** wrote this.", Citations: []Span{{DocName: "d", Text: "other", Page: 1}}},
	}}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, a); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if !strings.Contains(md, "\\> HousePrice \\<- read.table(\"houses.data\")[^1]") {
		t.Errorf("quoted statement not escaped:\n%s", md)
	}
	// A model's statement is escaped too (TestMarkdownForgeryRendersCitelensVerdicts).
	if !strings.Contains(md, "A \\*\\*model\\*\\* wrote this.[^2]") {
		t.Errorf("model statement not escaped:\n%s", md)
	}
}

// TestJSONExportsEscapeC1AndBidi: the JSON and LongBench-Cite exports write
// U+009B (CSI) and U+202E (right-to-left override) as \u escapes, and read
// back the same text.
func TestJSONExportsEscapeC1AndBidi(t *testing.T) {
	t.Parallel()
	text := "Paid \u009b31m in full \u202eved.exe"
	doc := &docstore.Document{DocInfo: docstore.DocInfo{ID: "d1", Name: "d.txt"}, Text: text,
		Sentences: []docstore.Sentence{{Start: 0, End: int32(len(text)), Page: 1}}}
	a := &Answer{ID: "a1", Question: "q \u202e", Docs: []DocRef{{ID: "d1", Name: "d.txt"}}, Statements: []Statement{{
		Text: text, Citations: []Span{{Doc: "d1", DocName: "d.txt", Start: 0, End: len(text), Page: 1, Text: text}},
	}}}
	lookup := func(id docstore.DocID) (*docstore.Document, error) { return doc, nil }
	for name, write := range map[string]func(*bytes.Buffer) error{
		"json":      func(b *bytes.Buffer) error { return WriteJSON(b, a) },
		"longbench": func(b *bytes.Buffer) error { return WriteLongBenchCite(b, lookup, a) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.ContainsAny(out, "\u009b\u202e") || !strings.Contains(out, `\u009b`) || !strings.Contains(out, `\u202e`) {
			t.Errorf("%s: C1/bidi not escaped:\n%s", name, out)
		}
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, a); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&buf)
	if err != nil || back.Statements[0].Text != text {
		t.Errorf("round trip: %v %q", err, back.Statements[0].Text)
	}
}
