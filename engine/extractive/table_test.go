package extractive

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/llm/llmtest"
)

// filing is an annual report's cash-flow statement as a web page: the
// year is only in the column headers, never in the row, and an earlier
// table has a row of the same words for other years.
const filing = `<html><body>
<h1>Annual report 2019</h1>
<h2>Liquidity</h2>
<p>Purchases of property, plant and equipment are planned to rise as the new plant opens. The board reviews them every quarter.</p>
<h2>Earlier years</h2>
<table>
<caption>Selected data (in millions)</caption>
<tr><th>Item</th><th>2016</th><th>2015</th></tr>
<tr><td>Purchases of property, plant and equipment</td><td>(8.1)</td><td>(7.5)</td></tr>
</table>
<h2>Cash flows</h2>
<table>
<caption>Consolidated statements of cash flows (in millions)</caption>
<tr><th>Item</th><th>2019</th><th>2018</th><th>2017</th></tr>
<tr><td>Net income</td><td>41.0</td><td>38.2</td><td>30.1</td></tr>
<tr><td>Purchases of property, plant and equipment</td><td>(12.4)</td><td>(10.9)</td><td>(9.7)</td></tr>
<tr><td>Dividends paid</td><td>(5.0)</td><td>(4.8)</td><td>(4.5)</td></tr>
</table>
<h2>Outlook</h2>
<p>Revenue is expected to grow in 2020.</p>
</body></html>`

// TestTableRowCarriesItsHeaders: a question naming the year finds the
// table row whose year is only in its column headers (indexed as the
// row's context), not the same row of a table of other years; with an
// embedding model that knows "capital expenditure" means those purchases,
// the paraphrase finds it too (rows are embedded with their headers).
func TestTableRowCarriesItsHeaders(t *testing.T) {
	t.Parallel()
	lib, docs := enginetest.TextLibrary(t, "report.html", filing)
	d := docs[0]
	row := -1
	for i, s := range d.Sentences {
		if strings.HasPrefix(d.SentenceText(i), "Purchases of property, plant and equipment  ") && strings.Contains(d.SentenceText(i), "10.9") {
			row = i
			if s.Table < 0 || len(d.TableContext(i)) == 0 {
				t.Fatalf("the row is not a table row with headers: %+v, context %q", s, d.TableContext(i))
			}
		}
	}
	if row < 0 {
		t.Fatalf("no one-line row for the purchases among:\n%s", d.Text)
	}
	ask := func(env *engine.Env, q, k string) *engine.Answer {
		t.Helper()
		s, err := engine.New(Name, env)
		if err != nil {
			t.Fatal(err)
		}
		ans, err := engine.Run(t.Context(), env, s, engine.Request{Question: q, Docs: []docstore.DocID{d.ID}, Options: engine.Settings("k", k)}, nil)
		if err != nil || len(ans.Statements) == 0 {
			t.Fatalf("%q: %+v %v", q, ans, err)
		}
		return ans
	}
	words := engine.NewEnv(lib, enginetest.Config(llmtest.New(t)))
	words.LLM = nil // offline
	if c := ask(words, "How much were purchases of property, plant and equipment in 2018?", "1").Statements[0].Citations[0]; c.First != row {
		t.Errorf("by words: cited %q, want the row", c.Text)
	}

	srv := llmtest.New(t, llmtest.WithConcepts([]string{"capital expenditure", "purchases of property, plant and equipment"}))
	cfg := enginetest.Config(srv)
	cfg.EmbedModel = llmtest.DefaultEmbedModel
	ans := ask(enginetest.Env(t, lib, cfg), "What was the capital expenditure in 2018?", "3")
	found := false
	for _, st := range ans.Statements {
		c := st.Citations[0]
		found = found || (c.First <= row && row <= c.Last && strings.Contains(c.Heading, "Cash flows"))
	}
	if !found {
		t.Errorf("by meaning: the row is not among %+v", ans.Statements)
	}
}
