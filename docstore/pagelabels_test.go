package docstore

import "testing"

func TestPageLabel(t *testing.T) {
	t.Parallel()
	// fullrefman.pdf's labels: a title page "I", front matter from "i",
	// the manual from "1" on page 32.
	info := DocInfo{PageLabels: []PageLabelRange{{First: 1, Style: "R", Start: 1}, {First: 2, Style: "r", Start: 1}, {First: 32, Style: "D", Start: 1}}}
	for page, want := range map[int]string{1: "I", 2: "i", 4: "iii", 31: "xxx", 32: "1", 347: "316", 0: ""} {
		if got := info.PageLabel(page); got != want {
			t.Errorf("PageLabel(%d) = %q, want %q", page, got, want)
		}
	}
	if got := info.PageName(347); got != "p. 316 (PDF p. 347)" {
		t.Errorf("PageName(347) = %q", got)
	}
	letters := DocInfo{PageLabels: []PageLabelRange{{First: 3, Style: "A", Prefix: "App. ", Start: 26}, {First: 6, Prefix: "Index"}}}
	for page, want := range map[int]string{1: "", 2: "", 3: "App. Z", 4: "App. AA", 5: "App. BB", 6: "Index", 9: "Index"} {
		if got := letters.PageLabel(page); got != want {
			t.Errorf("PageLabel(%d) = %q, want %q", page, got, want)
		}
	}
	none := DocInfo{}
	if got := none.PageName(5); got != "p. 5" || none.PrintedPage(5) != "" {
		t.Errorf("a document without labels names page 5 %q", got)
	}
	same := DocInfo{PageLabels: []PageLabelRange{{First: 1, Style: "r"}, {First: 3, Style: "D", Start: 3}}}
	if got := same.PrintedPage(4); got != "" {
		t.Errorf("a label equal to the page number is shown beside it: %q", got)
	}
}
