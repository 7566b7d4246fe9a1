package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestStrategyPickerSaysWhatEachIsFor: the picker lists what answers
// offline first, then, under a heading that says none is configured, the
// strategies that need a model; each in plain words, the papers' words
// below the list for the one under the cursor.
func TestStrategyPickerSaysWhatEachIsFor(t *testing.T) {
	_, s := startDeclaration(t, "no-color", 120, 40)
	s.waitText("declaration.txt")
	s.press("ctrl+s")
	s.waitText("Offline: no model, no cost")
	s.selectStrategy("extractive")
	v := ansi.Strip(s.view())
	for _, want := range []string{"Quotes the sentences that best match the question", "Need a model: none is configured", "offline: quotes the document sentences"} {
		if !strings.Contains(v, want) {
			t.Errorf("%q is not in the picker:\n%s", want, v)
		}
	}
	offline, model := strings.Index(v, "Offline: no model"), strings.Index(v, "Need a model:")
	if offline < 0 || model < offline || strings.Index(v, "needs-model") < model || strings.Index(v, "▌ extractive") > model {
		t.Errorf("the strategies that need a model are not apart, after the offline ones:\n%s", v)
	}
	s.press("esc")
	s.finish()
}
