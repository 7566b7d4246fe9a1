package retrieve

import "testing"

func TestMachinery(t *testing.T) {
	t.Parallel()
	if !indexLine("Rdutils, 2029 Sys.sleep, 633 sys.source, 634") {
		t.Error("a back-of-book index line is machinery")
	}
	if indexLine("incomes <- c(60, 49, 40, 61, 64, 60)") || indexLine("It is controlled by FC_DEBUG, 2 ways.") {
		t.Error("numbers in a list, or prose, are no index")
	}
	if !asksCode("What compression level does bzfile() use?") || !asksCode("Which command opens it?") || asksCode("How do I pause a script?") {
		t.Error("asksCode: code or a word for it")
	}
	if !pointer("See the section called “Dangling objects” for the details.") || !pointer("For more information, see also Getting started.") ||
		pointer("Seeing the output takes a second.") || pointer("The section called “Dangling objects” says more.") {
		t.Error("pointer: a sentence that only points elsewhere")
	}
	q := parseQuery("Is the model linear?")
	u := analyseUnit(q, "A non-linear model.", func(string) []string { return nil }, false)
	if u.tf[q.index["linear"]] != 0 {
		t.Error(`"linear" matched "non-linear"`)
	}
	q = parseQuery("Is the model non-linear?")
	u = analyseUnit(q, "A non-linear model.", func(string) []string { return nil }, false)
	if u.tf[q.index["linear"]] == 0 {
		t.Error(`"non-linear" did not match "non-linear"`)
	}
}
