package source

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/themes"
	"github.com/citelens/citelens/tui/internal/pane"
)

// changed is a comparison of a reworded clause whose document text holds
// an escape sequence and a control character, as a hostile file may.
func changed() *Change {
	old := "For cutting off our \x1b[31mTrade\x1b[0m with all parts of the world:"
	cur := "For cutting off our Commerce\x07 with all parts of the world by sea:"
	return &Change{Class: reanchor.Changed, Cited: "version 1", Latest: "version 2 of 2", OldText: old,
		Diff: reanchor.Diff(old, cur), Similarity: 0.83, Page: 1, ShowingLatest: true}
}

// The comparison stands above the text, side by side when the pane is
// wide and stacked when it is narrow, with the struck and added words
// marked, and never lets a document's control characters through.
func TestComparisonLayout(t *testing.T) {
	doc := sampleDoc()
	for _, tc := range []struct {
		w       int
		stacked bool
	}{{80, false}, {40, true}} {
		m := New(themes.NoColor())
		m.SetSize(tc.w, 24)
		m.Show(doc, sampleRange("The viewer highlights exactly those bytes"), nil)
		m.SetChange(changed())
		v := view(m)
		if strings.ContainsAny(ansi.Strip(v), "\x1b\x07") {
			t.Fatalf("width %d: a control character reached the screen: %q", tc.w, v)
		}
		lines := plainLines(v)
		if !strings.Contains(lines[1], "⟳ changed in version 2 of 2 · 83% alike") {
			t.Errorf("width %d: first line under the header %q, want the class", tc.w, lines[1])
		}
		if got := strings.Contains(v, "version 1 (cited):"); got != tc.stacked {
			t.Errorf("width %d: stacked %v, want %v:\n%s", tc.w, got, tc.stacked, ansi.Strip(v))
		}
		// No colour: struck words bold and struck through (SGR 1;9),
		// added ones in reverse video, the highlight's mark.
		// The escapes in the text are shown as symbols (textproc.OneLine).
		if !strings.Contains(v, "\x1b[1;9m␛[31mTrade␛[0m\x1b[m") || !strings.Contains(v, "\x1b[7mCommerce␇\x1b[m") {
			t.Errorf("width %d: the difference is not marked:\n%q", tc.w, v)
		}
		if !strings.Contains(v, "below: version 2 of 2 (latest)") {
			t.Errorf("width %d: the rule does not say which version is below:\n%s", tc.w, ansi.Strip(v))
		}
		// The comparison takes rows from the text, never the footer, and
		// the citation is still in view below it.
		if len(m.View(tc.w, 24)) != 24 || !strings.Contains(ansi.Strip(v), "The viewer highlights") {
			t.Errorf("width %d: the citation left the view:\n%s", tc.w, ansi.Strip(v))
		}
	}
}

// A sentence gone shows the nearest candidates; in a short pane the
// comparison is cut, saying so, and the text keeps half the rows.
func TestComparisonGoneAndShort(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(60, 24)
	m.Show(sampleDoc(), sampleRange("The end."), nil)
	c := &Change{Class: reanchor.Gone, Cited: "version 1", Latest: "version 2 of 2",
		OldText:    "For quartering large bodies of armed troops among us:",
		Candidates: []Candidate{{Text: "For quartering\x1b]8;;x\x07 troops:", Page: 3, Similarity: 0.62}, {Text: "For troops.", Page: 4, Similarity: 0.4}}}
	m.SetChange(c)
	v := ansi.Strip(view(m))
	for _, want := range []string{"⟳ gone from version 2 of 2", "nearest in version 2 of 2:", "62% · p. 3 · For quartering␛]8;;x␇ troops:", "40% · p. 4 · For troops."} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in:\n%s", want, v)
		}
	}
	if strings.ContainsAny(v, "\x1b\x07") {
		t.Errorf("a control character reached the screen: %q", v)
	}
	m.SetSize(60, 8)
	lines := m.View(60, 8)
	if n := len(m.changeRows); n > 3 || !strings.Contains(ansi.Strip(strings.Join(lines, "\n")), "…") {
		t.Errorf("a short pane: %d comparison rows, want at most 3, cut with …:\n%s", n, ansi.Strip(strings.Join(lines, "\n")))
	}
	if m.bodyHeight() < 3 {
		t.Errorf("the text has %d rows of 6", m.bodyHeight())
	}
}

// b asks for the other version while a comparison is shown, and says why
// not otherwise.
func TestVersionKey(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(60, 20)
	m.Show(sampleDoc(), sampleRange("The end."), nil)
	_, acts := press(t, m, "b")
	if len(acts) != 1 {
		t.Fatalf("b with no comparison: %v", acts)
	}
	if n, ok := acts[0].(pane.Notice); !ok || !strings.Contains(n.Text, "no newer version") {
		t.Errorf("b with no comparison: %#v, want a notice", acts[0])
	}
	m.SetChange(changed())
	_, acts = press(t, m, "b")
	if len(acts) != 1 || acts[0] != (VersionMsg{}) {
		t.Errorf("b with a comparison: %#v, want VersionMsg", acts)
	}
	if h := m.ShortHelp(); len(h) == 0 || h[0].Help().Key != "b" {
		t.Error("the status line does not offer b first while a comparison is shown")
	}
}
