// Package pane is the one contract every pane of the TUI keeps — the
// library, the conversation, the source, the add dialog and the pickers —
// and the actions they share.
//
// A pane is a value, as a bubbletea model is. It does no I/O and starts
// no work in Update: what it needs done outside itself it returns as an
// Action, which the root model carries out at once, in order with the
// keys that follow (two quick n presses show their citations in order; a
// command's message would come back later, after the next key). Its own
// background work (a search, reading a folder) is a tea.Cmd whose message
// comes back to its Update.
//
// View draws the pane in exactly the cells the caller gives it: w × h
// for a pane, at most w × h for a dialog laid over the panes. The lines
// are returned, not joined, so the root can frame them and set panes
// side by side without measuring them again.
package pane

import tea "charm.land/bubbletea/v2"

// Action is what a pane asks of the root model: one of the pane's own
// action types (library.OpenMsg, conversation.AskMsg…), Notice or Close;
// nil for nothing.
type Action = tea.Msg

// Model is the contract: P is the pane's own model type.
type Model[P any] interface {
	Update(msg tea.Msg) (P, tea.Cmd, Action)
	View(w, h int) []string
}

// Notice asks for a short message on the status line: what a key did, or
// why it did nothing.
type Notice struct {
	Text  string
	Error bool
}

// Close says the pane is done: a dialog closes, a pane gives the
// keyboard back to the question input.
type Close struct{}

// Type says a key is text for the question input: a printable key that
// is no command of the pane it was pressed in, which starts a question
// (tui/KEYS.md, rule 3). The root moves the keyboard to the input and
// types the key there.
type Type struct{ Key tea.KeyPressMsg }

// Printable reports whether k types a character: text, with no modifier
// but shift.
func Printable(k tea.KeyPressMsg) bool { return k.Text != "" && k.Mod&^tea.ModShift == 0 }
