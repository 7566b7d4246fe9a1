package tui

import (
	"context"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/viewer"
	"github.com/citelens/citelens/tui/conversation"
	"github.com/citelens/citelens/tui/pageview"
	"github.com/citelens/citelens/tui/termimage"
)

// The page view: the source pane shows the cited page as printed (v),
// drawn with what the terminal speaks, which the program asks it at the
// start (termimage.Queries) unless --graphics says.

// detectWait is how long the terminal has to answer the graphics queries
// before the page view settles for the half-block map.
const detectWait = 2 * time.Second

// detectTimeoutMsg ends the wait for the terminal's answers.
type detectTimeoutMsg struct{}

func (detectTimeoutMsg) update(m *Model) tea.Cmd {
	if m.detect.Done() {
		return nil
	}
	m.detect.GiveUp()
	return m.applyGraphics()
}

// openedMsg is the system viewer started (or not).
type openedMsg struct{ err error }

func (msg openedMsg) update(m *Model) tea.Cmd {
	if msg.err != nil {
		text := "Cannot open the file: " + msg.err.Error()
		if f := fix.Of(msg.err); f != "" {
			text += ". " + f // what to do: a display, a viewer
		}
		m.setNotice(text, true)
	} else {
		m.setNotice("Opened in the system's viewer.", false)
	}
	return nil
}

// newPageSource is the renderer the program draws pages with, unless
// the options bring one: compiled once into the user's cache folder,
// started on the first page shown.
func newPageSource(opts Options) (*pageimage.Source, *pagerender.Renderer) {
	if opts.Pages != nil {
		return opts.Pages, nil
	}
	r := pagerender.New(pagerender.Options{CacheDir: pagerender.DefaultCacheDir()})
	return pageimage.New(opts.Library.Geometry(), r), r
}

// graphicsQueries asks the terminal what it draws (for --graphics auto)
// and its cell size in pixels (for every protocol that draws pixels).
func (m Model) graphicsQueries() tea.Cmd {
	if m.opts.Graphics == termimage.Off {
		return nil
	}
	return tea.Batch(tea.Raw(termimage.Queries()), tea.Tick(detectWait, func(time.Time) tea.Msg { return detectTimeoutMsg{} }))
}

// applyGraphics gives the page view the protocol and cell size: the one
// asked for, or what the terminal answered.
func (m *Model) applyGraphics() tea.Cmd {
	proto := m.opts.Graphics
	tmux := false
	if proto == termimage.Auto {
		proto = m.detect.Protocol()
	} else {
		// Chosen by name inside tmux: through its passthrough (tmux's
		// allow-passthrough must be on). Detected inside tmux, the
		// protocol is tmux's own (sixel in a tmux built with it).
		tmux = os.Getenv("TMUX") != "" && proto.Pixels()
	}
	cw, ch := m.detect.CellSize(m.width, m.height)
	return m.page.SetGraphics(proto, cw, ch, tmux)
}

// pixelSize asks the system for the window's size in pixels, in a
// command; the answer reaches the detector as the terminal's own would.
func (m Model) pixelSize() tea.Cmd {
	if m.opts.PixelSize == nil {
		return nil
	}
	f := m.opts.PixelSize
	return func() tea.Msg {
		w, h := f()
		if w <= 0 || h <= 0 {
			return nil
		}
		return uv.PixelSizeEvent{Width: w, Height: h}
	}
}

// setPageMode switches the source pane between the text and the page.
func (m *Model) setPageMode(on bool) tea.Cmd {
	if m.pageMode == on {
		return nil
	}
	m.pageMode = on
	m.layout()
	cmd := tea.Batch(m.page.SetActive(on), m.prefetchNext())
	if !on && (m.page.Graphics() == termimage.Sixel || m.page.Graphics() == termimage.ITerm2) {
		// Pixels stay until text is written over them: the text view
		// starts on a clean screen.
		cmd = tea.Batch(cmd, tea.ClearScreen)
	}
	return cmd
}

// pageScreen is what of the screen decides whether a sixel or iTerm2
// page picture is on it: whether the page is in sight, the focus (whose
// change restyles the pane's border) and the window's size.
type pageScreen struct {
	shown         bool
	focus         paneID
	width, height int
	// clearing: a clear screen hiding the picture is under way.
	clearing bool
}

// syncPage keeps a sixel or iTerm2 picture, which the terminal holds
// apart from the cells bubbletea draws, in step with the screen: hidden
// by a clear screen when the help or a dialog covers the pane, another
// pane takes a narrow window or the window is too small (else it stays
// over them), written again when it is uncovered or the screen
// around it was redrawn (else it is gone until a scroll). Called after
// every message.
func (m *Model) syncPage() tea.Cmd {
	if g := m.page.Graphics(); g != termimage.Sixel && g != termimage.ITerm2 {
		return nil
	}
	lo := m.computeLayout()
	now := pageScreen{
		shown: m.pageMode && !m.showHelp && m.add == nil && m.picker == nil && !lo.tooSmall &&
			(lo.mode != modeSingle || m.focus == paneSource),
		focus: m.focus, width: m.width, height: m.height,
	}
	was := m.pageSeen
	if now.shown == was.shown && now.focus == was.focus && now.width == was.width && now.height == was.height {
		return nil
	}
	m.pageSeen.shown, m.pageSeen.focus, m.pageSeen.width, m.pageSeen.height = now.shown, now.focus, now.width, now.height
	if !now.shown {
		cmd := m.page.SetCovered(true)
		if was.shown {
			// The clear is a message of its own, taken after others
			// already sent (a key closing the help at once): the
			// picture is written again only after it (pageClearedMsg),
			// or the clear would wipe it.
			m.pageSeen.clearing = true
			cmd = tea.Batch(cmd, tea.Sequence(tea.ClearScreen, func() tea.Msg { return pageClearedMsg{} }))
		}
		return cmd
	}
	cmd := m.page.SetCovered(false)
	if m.pageSeen.clearing {
		return nil // written when the clear is done
	}
	if cmd != nil {
		return cmd
	}
	return m.page.Repaint()
}

// pageClearedMsg says the screen clear that hid the page's picture is
// done: if the page is in sight again, its picture is written again.
type pageClearedMsg struct{}

func (pageClearedMsg) update(m *Model) tea.Cmd {
	m.pageSeen.clearing = false
	if m.pageSeen.shown {
		return m.page.Repaint()
	}
	return nil
}

// prefetchNext has the page view draw the answers' next citation's page
// ahead of time (n is the likeliest next key), when its document is
// loaded; nothing when the page view is hidden.
func (m *Model) prefetchNext() tea.Cmd {
	if !m.pageMode {
		return nil
	}
	peek := m.conv // a copy: stepping it moves nothing on screen
	c, ok := peek.StepCitation(1).(conversation.CitationMsg)
	if !ok {
		return nil
	}
	doc, ok := m.docs[c.Span.Doc]
	if !ok {
		return nil
	}
	return m.page.Prefetch(doc, pageview.Span{Start: c.Span.Start, End: c.Span.End})
}

// openInViewer opens the shown document's file at its page, in a command.
func openInViewer(a pageview.OpenMsg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return openedMsg{err: viewer.Open(ctx, a.Path, a.Page)}
	}
}
