package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The goldens are drawn in the no-colour theme, where every mark is an
// attribute (reverse video, underline, bold) that reads in the golden, and
// one in the dark theme in true colour. Sizes are fixed: 100×30 is the two
// column layout, 140×34 three columns, 60×20 the narrow one-pane layout.

func TestGoldenAskStreams(t *testing.T) {
	_, s, gate := asking(t, "no-color", 100, 30, 2)
	// Two statements are shown while the third is worked on.
	s.waitText("sub-question 2/2")
	s.waitText("Standing armies were kept")
	if strings.Contains(ansi.Strip(s.view()), "trial by jury") {
		t.Fatal("the third statement is shown before it was written")
	}
	s.golden("streaming")
	close(gate)
	s.waitText("scripted · 3 statements")
	s.golden("done")
	s.finish()
}

func TestGoldenJumpToCitation(t *testing.T) {
	_, s := answered(t, "no-color", 140, 34)
	s.press("j", "j", "enter")
	// The third statement's first citation, the other one marked faintly.
	s.waitText("For cutting off our Trade")
	s.golden("source")
	m := s.finish()
	if m.focus != paneSource {
		t.Errorf("enter left the focus on %v, want the source", m.focus.title())
	}
}

func TestGoldenJumpToCitationDark(t *testing.T) {
	_, s := answered(t, "dark", 100, 30)
	s.press("enter")
	s.waitFocus(paneSource)
	s.golden("source")
	s.finish()
}

func TestGoldenNextPreviousCitation(t *testing.T) {
	_, s := answered(t, "no-color", 100, 30)
	// n from the first statement's only citation crosses to the second
	// statement, then to the third's two; N steps back.
	s.press("n")
	// The first n loads the document; later ones show at once.
	s.waitText("Standing Armies without the Consent")
	s.press("n", "n")
	s.waitText("benefits of Trial by Jury")
	s.golden("third-statement-second-citation")
	s.press("N", "N")
	s.waitText("Standing Armies")
	s.golden("back-to-second-statement")
	m := s.finish()
	if m.focus != paneConversation {
		t.Errorf("n moved the focus to %v", m.focus.title())
	}
}

func TestGoldenSourceSearch(t *testing.T) {
	_, s := answered(t, "no-color", 100, 30)
	s.press("enter")
	s.waitFocus(paneSource)
	s.press("/")
	s.typeText("consent")
	s.press("enter")
	// The search starts at the first match at or below the top of the
	// view, the citation's; n wraps round to the first.
	s.waitText("match 3/3")
	s.press("n")
	s.waitText("match 1/3")
	s.waitText("Past the last match: back to the first.") // never silently
	s.golden("wrapped-to-first-match")
	s.press("esc")
	s.finish()
}

func TestGoldenHelp(t *testing.T) {
	_, s := startDeclaration(t, "no-color", 100, 40)
	s.waitText("declaration.txt")
	s.press("esc", "?")
	s.waitText("Everywhere")
	s.golden("help")
	s.press("esc")
	s.waitGone("Everywhere")
	s.finish()
}

func TestGoldenNarrow(t *testing.T) {
	declarationScript(t, -1)
	_, s := startDeclaration(t, "no-color", 60, 20)
	s.waitText("Conversation")
	s.ask(question)
	s.waitText("scripted · 3 statements")
	s.golden("conversation")
	s.press("enter")
	s.waitText("For imposing Taxes")
	s.golden("source")
	s.finish()
}

func TestGoldenTooSmall(t *testing.T) {
	_, s := startDeclaration(t, "no-color", 30, 8)
	s.waitText("window too small")
	s.golden("too-small")
	s.finish()
}
