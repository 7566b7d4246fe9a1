package docx

import (
	"testing"

	"github.com/citelens/citelens/docstore/doctest"
)

func TestTry(t *testing.T) {
	d := doctest.NewDOCX("Survey report")
	d.Title("Survey of the Harbour Wall")
	d.Heading(1, "1 Findings")
	d.Para("The wall |was built in |1874 and rebuilt in 1952.")
	d.WithFootnote("Its foundations rest on timber piles.", "Piles were inspected by divers in 2019.")
	d.Bullet("Cracks in the parapet")
	d.Bullet("Spalling of the coping stones")
	d.Heading(2, "1.1 Measurements")
	d.Caption("Table 1: Settlement by section")
	d.Table([]string{"Section", "Settlement (mm)"}, []string{"North", "12"}, []string{"South", "31"})
	d.Numbered(0, "Survey the north arm")
	d.Numbered(1, "with sonar")
	d.Numbered(0, "Repair the south arm")
	d.WithDeletion("The cost is ", "unknown", "estimated at £2 million.")
	d.Heading(4, "Annex")
	res, err := Extract(d.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("title %q\n%s", res.Title, res.Text)
	for _, h := range res.Headings {
		t.Logf("h%d %q", h.Level, res.Text[h.Span.Start:h.Span.End])
	}
	for _, tb := range res.Tables {
		t.Logf("table cap %q header %d rows %d", res.Text[tb.Caption.Start:tb.Caption.End], len(tb.Header), len(tb.Rows))
	}
}
