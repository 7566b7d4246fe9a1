package longcite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
)

const declaration = "../../testdata/declaration.txt"

// rainfallReport writes a long report of unique facts: n paragraphs, each
// about one station, three sentences each.
func rainfallReport(n int) string {
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	var b strings.Builder
	b.WriteString("Regional Rainfall Survey\n\n")
	for i := range n {
		fmt.Fprintf(&b, "Station %d, on the %s ridge, recorded %d millimetres of rain in %s. ", i, ridge(i), 100+(i*37)%900, months[i%12])
		fmt.Fprintf(&b, "Its gauge was last calibrated in %d by a crew of %d. ", 1990+i%30, 2+i%7)
		fmt.Fprintf(&b, "The nearest river rose by %d centimetres that month.\n\n", 5+(i*13)%80)
	}
	return b.String()
}

func ridge(i int) string {
	r := []string{"northern", "southern", "eastern", "western", "central"}
	return r[i%len(r)]
}

// shown is a prompt's numbered context as the model saw it: each number
// with the text after its tag, up to the next tag or the end of the
// context.
type shown struct {
	nums  []int
	texts map[int]string
}

// parseShown reads the numbered sentences of the test case in a prompt
// (skipping the one-shot example).
func parseShown(t testing.TB, prompt string) shown {
	t.Helper()
	if _, after, ok := strings.Cut(prompt, "Now get ready to handle the following test case."); ok {
		prompt = after
	}
	_, ctx, ok := strings.Cut(prompt, "[Document Start]\n")
	if !ok {
		t.Fatalf("no document in the prompt:\n%.500s", prompt)
	}
	ctx, _, ok = strings.Cut(ctx, "\n[Document End]")
	if !ok {
		t.Fatal("the document is not closed")
	}
	nums, texts := enginetest.Numbered(ctx)
	return shown{nums, texts}
}

// find returns the number of the shown sentence containing substr.
func (s shown) find(t testing.TB, substr string) int {
	t.Helper()
	for _, n := range s.nums {
		if strings.Contains(s.texts[n], substr) {
			return n
		}
	}
	t.Fatalf("no shown sentence contains %q", substr)
	return -1
}

// span returns what the model saw as <Ca>…<Cb>, with the breaks between
// sentences as shown.
func (s shown) span(a, b int) string {
	var out strings.Builder
	for n := a; n <= b; n++ {
		out.WriteString(s.texts[n])
	}
	return strings.TrimRight(out.String(), " \n")
}

// sameWords compares texts ignoring how whitespace runs are written (the
// prompt reduces a document's line breaks between sentences).
func sameWords(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// collect gathers a strategy's events.
type collect struct {
	deltas      int
	stages      []string
	statements  int
	firstStmtAt int // deltas received when the first statement came
	usage       int
}

func (c *collect) emit(ev engine.Event) {
	switch ev := ev.(type) {
	case engine.Delta:
		c.deltas++
	case engine.Stage:
		c.stages = append(c.stages, string(ev))
	case engine.Warning:
		c.stages = append(c.stages, string(ev))
	case engine.Statement:
		if c.statements == 0 {
			c.firstStmtAt = c.deltas
		}
		c.statements++
	case engine.Usage:
		c.usage++
	}
}

// mustNew is the longcite strategy in env.
func mustNew(t testing.TB, env *engine.Env) engine.Strategy {
	t.Helper()
	s, err := engine.New(Name, env)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
