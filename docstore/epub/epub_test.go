package epub

import (
	"testing"

	"github.com/citelens/citelens/docstore/doctest"
)

func TestTry(t *testing.T) {
	b := doctest.EPUB("The Lighthouse Keepers",
		doctest.Chapter{Title: "Chapter 1: The Rock", Body: `<h1>Chapter 1: The Rock</h1><p>The lighthouse stood on a rock <a id="n1"/>eleven miles out.</p><h2>Arrival</h2><p>Keepers arrived by boat every fortnight.</p>`},
		doctest.Chapter{Title: "Chapter 2: Storms", Body: `<p class="first">In the winter of 1896 the keepers were cut off for nine weeks.</p><table><tr><th>Year</th><th>Weeks cut off</th></tr><tr><td>1896</td><td>9</td></tr></table>`},
	)
	res, err := Extract(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("title %q pages %v warn %v\n%s", res.Title, res.PageStarts, res.Warnings, res.Text)
	for _, h := range res.Headings {
		t.Logf("h%d %q", h.Level, res.Text[h.Span.Start:h.Span.End])
	}
}
