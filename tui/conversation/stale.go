package conversation

import (
	"maps"

	"github.com/citelens/citelens/engine"
)

// StaleMark is what an answer whose evidence changed carries on the line
// under its question: quiet, as the rest of that line, because the
// answer is still what was said of the version it cites — the source
// pane says what changed.
const StaleMark = "⟳ evidence changed"

// SetStale marks the saved answers in ids (by ID) as citing evidence
// that a newer version of a document changed or dropped, and unmarks
// every other; the root works this out off the Update loop.
func (m *Model) SetStale(ids map[string]bool) {
	if maps.Equal(m.stale, ids) {
		return
	}
	m.stale = maps.Clone(ids)
	// The mark is on each header's meta line: drawn again.
	m.cache.clear()
	m.settle()
}

// Stale reports whether the saved answer id carries the mark.
func (m Model) Stale(id string) bool { return m.stale[id] }

// Answers returns the saved answers shown, oldest first: the root
// re-anchors their citations when the library changes.
func (m Model) Answers() []*engine.Answer {
	out := make([]*engine.Answer, 0, len(m.entries))
	for _, e := range m.entries {
		if e.ans != nil && e.ans.ID != "" {
			out = append(out, e.ans)
		}
	}
	return out
}
