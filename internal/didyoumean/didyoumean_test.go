package didyoumean

import "testing"

func TestClosest(t *testing.T) {
	t.Parallel()
	cmds := []string{"add", "ask", "answers", "export", "search", "show", "strategies", "tui", "longcite", "raidd-s", "raidd-s+"}
	for typed, want := range map[string]string{
		"serach": "search", "exprot": "export", "strategeis": "strategies", "LongCite": "longcite", "longcit": "longcite",
		"raid-s": "raidd-s", "xyz": "", "asks": "ask", "answer": "answers", "tiu": "tui", "": "",
	} {
		got, ok := Closest(typed, cmds)
		if got != want || ok != (want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", typed, got, ok, want)
		}
	}
	if h := Hint("serach", cmds); h != ` (did you mean "search"?)` {
		t.Errorf("Hint = %q", h)
	}
}
