package conversation

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/themes"
)

// TestNoHyperlinksFromModelMarkdown: glamour turns a model's Markdown
// links and images into OSC 8 hyperlinks; what the pane draws has none,
// while the link's text and URL stay readable.
func TestNoHyperlinksFromModelMarkdown(t *testing.T) {
	t.Parallel()
	r, err := themes.NoColor().MarkdownRenderer(80)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render("See [the terms](https://evil.example/login) and ![x](https://evil.example/p.gif).")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "\x1b]8;") {
		t.Skip("this glamour writes no OSC 8 hyperlinks; nothing to strip")
	}
	got := stripHyperlinks(out)
	if strings.Contains(got, "\x1b]8") {
		t.Errorf("a hyperlink survives: %q", got)
	}
	if !strings.Contains(got, "the terms") || !strings.Contains(got, "https://evil.example/login") {
		t.Errorf("the link's text or URL is gone: %q", got)
	}
}
