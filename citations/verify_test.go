package citations

import (
	"strings"
	"testing"
)

func TestSupportExamples(t *testing.T) {
	t.Parallel()
	a, b := samples(t)
	tests := []struct {
		name      string
		statement string
		cited     string
		level     Level
		min, max  float64
	}{
		{"paraphrase", "Scott Derrickson, born on July 16, 1966, is an American film director, screenwriter and producer.",
			a.SentenceText(5), Supported, 0.9, 0.95},
		{"exact quote, case and spacing aside", "he lives in   Los Angeles, California",
			a.SentenceText(5) + " " + a.SentenceText(6), Supported, 1, 1},
		{"two sentences support a list statement", "Shirley Temple Black was an American actress and diplomat who was named ambassador to Ghana and Czechoslovakia and served as Chief of Protocol.",
			b.SentenceText(6) + " " + b.SentenceText(7), Supported, 0.9, 1},
		{"half the claim", "Tyler Bates, an American composer born in 1965, is the lead guitarist of Marilyn Manson and scored Doctor Strange.",
			a.SentenceText(15), Partial, 0.5, 0.6},
		{"contradicting number", "Its population was 504 at the 2010 census.",
			a.SentenceText(10), Partial, 0.6, 0.65},
		{"a wrong year caps an otherwise high score at partial", "Scott Derrickson (born July 16, 1967) is an American director, screenwriter and producer.",
			a.SentenceText(5), Partial, 0.75, 0.8},
		{"wrong number and little else", "The film grossed 300 million dollars in 2015.",
			a.SentenceText(33), Unsupported, 0, 0.1},
		{"unrelated", "Shirley Temple served as Chief of Protocol of the United States.",
			a.SentenceText(33), Unsupported, 0, 0.1},
		{"thousands separators", "The program had 1,000 listeners in 1943.",
			"The radio program Meet Corliss Archer had 1000 listeners when it began in 1943.", Supported, 1, 1},
		{"number words are numbers", "The film won two Academy Awards.",
			"The film won 2 Academy Awards.", Supported, 1, 1},
		{"a number word the source lacks", "The 1994 film, directed by Tim Burton, starred Johnny Depp and won two Academy Awards.",
			a.SentenceText(1), Partial, 0.6, 0.7},
		{"one film of a list of four, with a year", "He is best known for horror films such as \"Sinister\" and \"Deliver Us From Evil\", and for the 2016 Marvel film \"Doctor Strange\".",
			a.SentenceText(33), Partial, 0.2, 0.3},
		{"no content words", "It is what it is.", a.SentenceText(5), Unsupported, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Support(tt.statement, tt.cited)
			if v.Level != tt.level || v.Score < tt.min || v.Score > tt.max || v.Judge != OfflineJudge {
				t.Errorf("Support = %+v, want %s with score in [%.2f, %.2f]\n statement: %s\n cited: %s",
					v, tt.level, tt.min, tt.max, tt.statement, tt.cited)
			}
		})
	}
}

func TestThresholds(t *testing.T) {
	t.Parallel()
	// Six content words, k of them cited (k/6 = 0, .17, .33, .5, .67, .83,
	// 1): the levels switch at 0.2 and 0.7.
	statement := "alpha bravo charlie delta echo foxtrot"
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
	want := []Level{Unsupported, Unsupported, Partial, Partial, Partial, Supported, Supported}
	for k := 0; k <= 6; k++ {
		cited := ""
		for _, w := range words[:k] {
			cited += w + " is here. "
		}
		if v := Support(statement, cited); v.Level != want[k] {
			t.Errorf("%d of 6 words cited: %+v, want %s", k, v, want[k])
		}
	}
}

func TestVerifyAndJoint(t *testing.T) {
	t.Parallel()
	a, b := samples(t)
	st := Statement{
		Text:      "Shirley Temple, who played Corliss Archer in Kiss and Tell, later served as Chief of Protocol of the United States.",
		Citations: []Span{SpanOf(b, 24, 24), SpanOf(b, 7, 7), SpanOf(a, 33, 33)},
	}
	Verify(&st)
	if len(st.Support) != 3 {
		t.Fatalf("%d verdicts for 3 citations", len(st.Support))
	}
	if st.Support[0].Level != Partial || st.Support[1].Level != Partial || st.Support[2].Level != Unsupported {
		t.Errorf("verdicts %+v: want partial, partial, unsupported", st.Support)
	}
	if j := Joint(&st); j.Level != Supported {
		t.Errorf("the citations together: %+v, want supported", j)
	}
	if st.NeedsCitation {
		t.Error("a cited statement marked as needing a citation")
	}
	un := Statement{Text: "Kiss and Tell was released in 1945."}
	Verify(&un)
	if !un.NeedsCitation || len(un.Support) != 0 {
		t.Errorf("uncited fact: %+v", un)
	}
	if j := Joint(&un); j.Level != Unsupported {
		t.Errorf("joint support of nothing: %+v", j)
	}
}

func TestNeedsCitation(t *testing.T) {
	t.Parallel()
	no := []string{
		"Here is what the document says about Scott Derrickson:",
		"Sure! Here are the films he directed:",
		"Based on the document, both men were American filmmakers:",
		"The following films were directed by Derrickson.",
		"In summary, both were American.",
		"Overall, the two share a nationality.",
		"Were they of the same nationality?",
		"Yes.",
		"- Yes, both.",
		"Therefore, they share the same nationality.",
		"So yes, they were of the same nationality.",
		"This means the answer is yes.",
		"The document does not mention Ed Wood's religion.",
		"No information about his awards is given in the text.",
		"...",
		"",
	}
	yes := []string{
		"Scott Derrickson was born on July 16, 1966.",
		"- Ed Wood directed Plan 9 from Outer Space.",
		"1. Kiss and Tell is a 1945 comedy film.",
		"Yes, Ed Wood was an American filmmaker.",
		"Therefore, Derrickson was 28 when the film Ed Wood came out in 1994.",
		"Woodson had 403 residents.",
		"Derrickson directed Sinister and Doctor Strange.",
	}
	for _, s := range no {
		if NeedsCitation(s) {
			t.Errorf("NeedsCitation(%q) = true, want false", s)
		}
	}
	for _, s := range yes {
		if !NeedsCitation(s) {
			t.Errorf("NeedsCitation(%q) = false, want true", s)
		}
	}
}

func TestVerifyAnswerUsesContext(t *testing.T) {
	t.Parallel()
	a, _ := samples(t)
	ans := &Answer{
		Question: "Were Scott Derrickson and Ed Wood of the same nationality?",
		Statements: []Statement{
			{Text: "Scott Derrickson is an American director.", Citations: []Span{SpanOf(a, 5, 5)}},
			{Text: "Edward Davis Wood Jr. was an American filmmaker.", Citations: []Span{SpanOf(a, 21, 21)}},
			{Text: "Therefore, Derrickson and Wood were both American."},
			{Text: "Therefore, Tim Burton's film about Wood is worth watching."},
			{Text: "So both were American, as was the U.S. director Edward Davis Wood."},
		},
	}
	VerifyAnswer(ans)
	if ans.Statements[2].NeedsCitation {
		t.Error("a conclusion from earlier statements was marked as needing a citation")
	}
	if !ans.Statements[3].NeedsCitation {
		t.Error("a 'therefore' statement bringing in a new name (Tim Burton) was excused")
	}
	if ans.Statements[4].NeedsCitation {
		t.Error("initials (U.S.) were taken for a new name")
	}
	for i, s := range ans.Statements[:2] {
		if len(s.Support) != 1 || s.Support[0].Level != Supported {
			t.Errorf("statement %d: %+v", i, s.Support)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	a, _ := samples(b)
	st := Statement{
		Text:      "Tyler Bates, an American composer born in 1965, is the lead guitarist of Marilyn Manson and scored Doctor Strange.",
		Citations: []Span{SpanOf(a, 15, 16), SpanOf(a, 19, 19), SpanOf(a, 42, 44)},
	}
	for b.Loop() {
		Verify(&st)
	}
}

// Explain gives Support's verdict with the words behind it: a figure the
// cited text lacks is missing, and caps the verdict.
func TestExplain(t *testing.T) {
	t.Parallel()
	cited := "The committee approved a budget of 1,000 dollars for the two new libraries."
	e := Explain("The committee approved 1000 dollars for two libraries.", cited)
	if e.Verdict != Support("The committee approved 1000 dollars for two libraries.", cited) {
		t.Errorf("Explain's verdict %+v differs from Support's", e.Verdict)
	}
	if e.Level != Supported || len(e.Missing) != 0 || e.NumberMissing {
		t.Errorf("a supported statement: %+v", e)
	}
	e = Explain("The committee approved 5000 dollars for three libraries.", cited)
	if e.Level != Partial || !e.NumberMissing || strings.Join(e.Missing, " ") != "5000 three" {
		t.Errorf("wrong figures: %+v", e)
	}
	if strings.Join(e.Found, " ") != "committee approved dollars libraries" {
		t.Errorf("found %q", e.Found)
	}
}
