package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/tui/addfiles"
	"github.com/citelens/citelens/tui/internal/draw"
)

// The help screen: every key, by where it applies, over the panes; and
// the status line under them, with the keys that apply now or a notice.

// updateHelp handles a key while the help screen is shown: it scrolls,
// closes or quits.
func (m *Model) updateHelp(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.HelpClose):
		m.showHelp = false
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.HelpDown):
		m.helpTop = min(m.helpTop+1, m.helpMaxTop())
	case key.Matches(msg, k.HelpUp):
		m.helpTop = max(m.helpTop-1, 0)
	}
	return nil
}

// helpScreen is the full help: every key, by where it applies, in a frame
// of w × h that scrolls.
func (m Model) helpScreen(w, h int) []string {
	inner := w - 4
	lines := m.helpLines(inner)
	body := h - 2
	top := min(m.helpTop, max(len(lines)-body, 0))
	lines = lines[top:]
	for i := range lines {
		lines[i] = " " + draw.Fit(lines[i], inner) + " "
	}
	title := m.styles.Title.Render(" Keys ")
	return draw.NewBorder(m.styles.PaneFocused).Frame(title, lines, w, h)
}

// helpMaxTop is how far the help screen scrolls in the window.
func (m Model) helpMaxTop() int {
	return max(len(m.helpLines(m.width-4))-(m.height-3), 0)
}

// helpLines is the help screen's text, inner cells wide.
func (m Model) helpLines(inner int) []string {
	st := m.styles
	hm := m.help
	hm.SetWidth(inner)
	var lines []string
	if len(m.addFailures) > 0 {
		// The last add's failures in full, first: the status line said
		// them in one line, cut to the window.
		lines = append(lines, st.Title.Render("Files the last add could not add"))
		for _, f := range m.addFailures {
			wrapped := ansi.Wrap(textproc.OneLine(f), max(inner-2, 10), "")
			for i, l := range strings.Split(wrapped, "\n") {
				lead := "- "
				if i > 0 {
					lead = "  "
				}
				lines = append(lines, lead+l)
			}
		}
	}
	for _, sec := range m.helpSections() {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, st.Title.Render(sec.title))
		block := hm.FullHelpView(sec.groups)
		if fullWidth(block) > inner {
			// Too wide side by side: one group under the other.
			block = ""
			for i, g := range sec.groups {
				if i > 0 {
					block += "\n"
				}
				block += hm.FullHelpView([][]key.Binding{g})
			}
		}
		lines = append(lines, strings.Split(block, "\n")...)
	}
	return lines
}

// helpSection is the keys of one place, for the help screen.
type helpSection struct {
	title  string
	groups [][]key.Binding
}

// helpSections are every key, by where it applies.
func (m Model) helpSections() []helpSection {
	input, list := m.conv.KeyMap.HelpKeyMaps()
	return []helpSection{
		{"Everywhere", m.keys.FullHelp()},
		{"Question input", input},
		{"Conversation", list},
		{"Library", m.lib.KeyMap.FullHelp()},
		{"Adding documents", addfiles.DefaultKeyMap().FullHelp()},
		m.threadsHelp(),
		{"Page view (v in the source: the cited page as printed)", m.page.KeyMap.FullHelp()},
		{"Source", m.src.KeyMap.FullHelp()},
	}
}

// fullWidth is the widest line of a block.
func fullWidth(block string) int {
	w := 0
	for _, l := range strings.Split(block, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// statusLine is the notice if there is one, else the keys that apply:
// the focused pane's on the left, as many as fit, and the global ones
// (help and quitting) always, on the right.
func (m Model) statusLine(w int) string {
	if m.notice != "" {
		st := m.styles.Accent
		if m.noticeErr {
			st = m.styles.Error
		}
		return draw.Fit(st.Render(draw.Truncate(textproc.OneLine(m.notice), w)), w)
	}
	m.help.SetWidth(w)
	var local, global []key.Binding
	switch {
	case m.showHelp:
		local, global = []key.Binding{m.keys.HelpClose, m.keys.HelpDown}, []key.Binding{m.keys.Quit}
	case m.add != nil:
		local, global = m.add.KeyMap.ShortHelp(), []key.Binding{m.keys.HelpKey, m.keys.ForceQuit}
	case m.picker != nil:
		local, global = m.picker.KeyMap.ShortHelp(), []key.Binding{m.keys.Quit}
	case m.threads != nil && m.threads.Typing():
		local, global = m.threads.ShortHelp(), []key.Binding{m.keys.ForceQuit}
	case m.threads != nil:
		local, global = m.threads.ShortHelp(), []key.Binding{m.keys.Quit}
	case m.confirming():
		// Only the question's keys: any other is its answer.
		local, global = m.focusedHelp(), []key.Binding{m.keys.ForceQuit}
	case m.typing():
		local, global = m.focusedHelp(), m.keys.TypingHelp()
	default:
		local, global = m.focusedHelp(), m.keys.ShortHelp()
	}
	right := m.help.ShortHelpView(global)
	rw := fullWidth(right)
	if rw+2 > w {
		return draw.Fit(right, w)
	}
	// As many of the pane's keys as fit beside the global ones.
	m.help.SetWidth(w - rw - 3)
	left := draw.Truncate(m.help.ShortHelpView(local), w-rw-3)
	return draw.Spread(left, right, w)
}

func (m Model) focusedHelp() []key.Binding {
	switch m.focus {
	case paneLibrary:
		return m.lib.ShortHelp()
	case paneSource:
		if m.pageMode {
			return m.page.KeyMap.ShortHelp()
		}
		return m.src.ShortHelp()
	}
	return m.conv.ShortHelp()
}
