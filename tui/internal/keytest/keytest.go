// Package keytest turns key names into the key presses bubbletea delivers,
// for the TUI's tests: the root model's and every pane's test presses keys
// by the names the help screen shows ("enter", "shift+tab", "ctrl+x", "N").
package keytest

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Press is the key press named s: a named key ("enter", "esc", "tab",
// "shift+tab", "space", "pgup", "pgdown", "up", "down", "backspace",
// "f1", "alt+enter"),
// "ctrl+" and a letter, or one character, an upper-case letter being
// typed with shift.
func Press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "space", " ":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "f1":
		return tea.KeyPressMsg{Code: tea.KeyF1}
	case "alt+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
	}
	if c, ok := strings.CutPrefix(s, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: []rune(c)[0], Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	if r >= 'A' && r <= 'Z' {
		return tea.KeyPressMsg{Code: r + 32, ShiftedCode: r, Mod: tea.ModShift, Text: s}
	}
	return tea.KeyPressMsg{Code: r, Text: s}
}
