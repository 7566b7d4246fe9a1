package htmltext

import (
	"os"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore/structure"
)

func TestArticlePage(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/formats/article.html")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Extract(raw, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", res.Text)
	for _, h := range res.Headings {
		t.Logf("h%d %q", h.Level, res.Text[h.Span.Start:h.Span.End])
	}
	_ = structure.Span{}
	_ = strings.Contains
}
