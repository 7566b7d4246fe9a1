package llmtest

import (
	"fmt"
	"strings"
	"testing"
)

// TestSmallModelHabits: each habit changes a reply as its name says, on
// about half the requests, the same ones for the same seed.
func TestSmallModelHabits(t *testing.T) {
	t.Parallel()
	const answer = "<statement>Ed Wood was American.<cite>[3-4]</cite></statement><statement>So was he.<cite>[7]</cite></statement>"
	clean := func(ChatRequest) Reply { return Text(answer) }
	req := func(i int) ChatRequest {
		return ChatRequest{Messages: []Message{{Role: "user", Content: fmt.Sprintf("question %d", i)}}}
	}
	for _, h := range Habits() {
		respond := SmallModel(7, []Habit{h}, clean)
		touched := 0
		again := SmallModel(7, []Habit{h}, clean)
		for i := range 200 {
			got := respond(req(i))
			if other := again(req(i)); other.Text != got.Text {
				t.Fatalf("%s: not deterministic: %q then %q", h, got.Text, other.Text)
			}
			if got.Text == answer {
				continue
			}
			touched++
			switch h {
			case IgnoresTemplate:
				if strings.Contains(got.Text, "<") || strings.Contains(got.Text, "[") || !strings.HasPrefix(got.Text, "**Answer:**") {
					t.Errorf("%s: %q", h, got.Text)
				}
			case CitesOutOfRange:
				if !strings.Contains(got.Text, "[100003-100004]") || !strings.Contains(got.Text, "[100007]") {
					t.Errorf("%s: %q", h, got.Text)
				}
			case Markdown:
				if !strings.HasPrefix(got.Text, "```markdown\n- <statement>**Ed Wood was American.**<cite>") {
					t.Errorf("%s: %q", h, got.Text)
				}
			case Repeats:
				if strings.Count(got.Text, answer) != 3 {
					t.Errorf("%s: %q", h, got.Text)
				}
			case StopsMidTag:
				if !strings.HasSuffix(got.Text, "</s") || got.FinishReason != "length" {
					t.Errorf("%s: %q (%s)", h, got.Text, got.FinishReason)
				}
			}
		}
		if touched < 70 || touched > 130 {
			t.Errorf("%s touched %d of 200 replies; want about half", h, touched)
		}
	}
	if _, err := ParseHabits("repeats,loud"); err == nil || !strings.Contains(err.Error(), `"loud"`) {
		t.Errorf("ParseHabits: %v", err)
	}
	if hs, err := ParseHabits("all"); err != nil || len(hs) != len(Habits()) {
		t.Errorf("ParseHabits(all) = %v, %v", hs, err)
	}
}
