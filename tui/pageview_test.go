package tui

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/citelens/citelens/citations/pageimage"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/tui/termimage"
)

const rIntro = "../testdata/pdf/r-intro-p8-9.pdf"

// pdfAnswered starts the program on the R-intro sample, drawing pages
// with graphics, and answers a question whose statements cite page 1 and
// page 2; the answers have the keyboard.
func pdfAnswered(t *testing.T, graphics termimage.Protocol, w, h int) *session {
	t.Helper()
	setScript(t, -1,
		scriptedStatement{"R is a suite of software facilities.", []string{"integrated suite of software facilities"}},
		scriptedStatement{"R issues a prompt when it expects input.", []string{"it issues a prompt when it expects input commands"}},
	)
	lib, _ := enginetest.Library(t, rIntro)
	opts := testOptions(t, lib, "dark")
	opts.Graphics = graphics
	opts.Pages = pageimage.New(lib.Geometry(), pagerendertest.Renderer(t))
	s := start(t, opts, w, h)
	s.waitText("r-intro-p8-9.pdf")
	s.ask("What is R?")
	s.waitText("scripted · 2 statements")
	s.press("esc")
	return s
}

// TestPageViewKeys drives the page view with its keys, in the half-block
// map every terminal shows.
func TestPageViewKeys(t *testing.T) {
	s := pdfAnswered(t, termimage.Blocks, 140, 40)
	s.press("k", "enter") // the first statement's citation, in the source
	s.waitFocus(paneSource)
	s.waitText("v page view") // a PDF: the status line offers the page
	s.press("v")
	s.waitText("p. 2 (1/2) · preview")
	v := s.settle()
	// The page as bars of ink, the cited lines in the theme's highlight
	// (#EBCB8B, the dark theme's).
	if !strings.Contains(v, "▀") || !strings.Contains(v, "235;203;139") {
		t.Fatalf("no page map with the cited lines marked:\n%s", ansi.Strip(v))
	}
	if !strings.Contains(ansi.Strip(v), "z zoom to the citation") {
		t.Error("the status line does not show the page view's keys")
	}
	s.press("j")
	s.waitText("rows 2–")
	s.press("z")
	s.waitText("p. 2 (1/2) · preview · zoom")
	// A page without the cited lines is shown whole, and the header
	// says no zoom there; back on the citation's page, zoomed again.
	s.press("]")
	s.waitText("p. 3 (2/2) · preview")
	if v := ansi.Strip(s.settle()); strings.Contains(v, "· zoom") {
		t.Errorf("the header says zoom on a page without the citation:\n%s", v)
	}
	s.press("[")
	s.waitText("p. 2 (1/2) · preview · zoom")
	s.press("z")
	s.waitGone("· zoom")
	s.press("]")
	s.waitText("p. 3 (2/2) · preview")
	s.press("]") // no page 3: said, not done
	s.waitFor(func(string) bool {
		s.probe.mu.Lock()
		defer s.probe.mu.Unlock()
		return strings.Contains(s.probe.notice, "pages 1 to 2")
	}, "the notice")

	// n: the next statement's citation, on page 2, in the page view.
	s.press("[", "n")
	s.waitText("p. 3 (2/2) · preview")
	s.press("N")
	s.waitText("p. 2 (1/2) · preview")

	// v: back to the text, the cited sentence in view; v again: the page.
	s.press("v")
	s.waitText("/ search")
	s.waitGone("· preview")
	s.press("v")
	s.waitText("p. 2 (1/2) · preview")
	// esc: back to the answers, where it came from, the page still in
	// the source pane.
	s.press("esc")
	s.waitFocus(paneConversation)
	s.waitText("p. 2 (1/2) · preview")
	// The answers' selection drives it too: the second statement.
	s.press("j", "enter")
	s.waitText("p. 3 (2/2) · preview")
	s.finish()
}

// TestPageViewKitty: with kitty graphics the page is sent out of band
// (a=T with a virtual placement) and the view holds placeholder cells.
func TestPageViewKitty(t *testing.T) {
	s := pdfAnswered(t, termimage.Kitty, 140, 40)
	s.press("k", "enter")
	s.waitFocus(paneSource) // once the document is loaded
	s.press("v")
	s.waitText("p. 2 (1/2) · kitty")
	s.waitFor(func(v string) bool { return strings.Contains(v, "\U0010EEEE") }, "kitty placeholders")
	s.press("q")
	s.tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	out, err := io.ReadAll(s.tm.FinalOutput(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\x1b_Ga=T,U=1,f=24,o=z,") {
		t.Error("the page was not sent as a kitty image with a virtual placement")
	}
	if !strings.Contains(string(out), "\x1b_Ga=d,d=I,") {
		t.Error("the kitty image was not deleted on quitting")
	}
}

// TestPageViewNotPDF: a text document has no pages; the view says why
// and v goes back.
func TestPageViewNotPDF(t *testing.T) {
	_, s := answered(t, "no-color", 120, 30)
	s.press("enter")
	s.waitFocus(paneSource)
	s.press("v")
	s.waitText("No page view")
	s.waitText("PDFs only")
	s.press("v")
	s.waitText("/ search")
	s.finish()
}

// TestExportHTMLPictures: the HTML export from the TUI shows each
// citation's region of its page, as the command's does.
func TestExportHTMLPictures(t *testing.T) {
	s := pdfAnswered(t, termimage.Blocks, 140, 40)
	s.press("E")
	s.waitText("Export as")
	s.press("j", "j", "j", "enter") // html
	s.waitText("Exported to ")
	b, err := os.ReadFile(exportedPath(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `<img class="page" src="data:image/png;base64,`); n != 2 {
		t.Errorf("%d page pictures in the HTML export of two citations", n)
	}
	s.finish()
}

// TestPageViewOpenNoDisplay: o with no graphical display says why the
// file cannot be opened, never "Opened".
func TestPageViewOpenNoDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	s := pdfAnswered(t, termimage.Blocks, 140, 40)
	s.press("k", "enter")
	s.waitFocus(paneSource)
	s.press("v")
	s.waitText("p. 2 (1/2) · preview")
	s.press("o")
	var notice string
	s.waitFor(func(string) bool {
		s.probe.mu.Lock()
		defer s.probe.mu.Unlock()
		notice = s.probe.notice
		return notice != "" && !strings.Contains(notice, "No document")
	}, "a notice")
	if strings.Contains(notice, "Opened") || !strings.Contains(notice, "no graphical display") || !strings.Contains(notice, "ssh -X") {
		t.Errorf("o without a display says %q", notice)
	}
	s.finish()
}

// TestPageViewSixelCovered: with the page in sixel, the help screen
// covers the view (no picture is written over the keys, and the screen
// is cleared of it) and, closed, uncovers it. The xterm test
// (cmd/citelens) photographs the pixels themselves.
func TestPageViewSixelCovered(t *testing.T) {
	s := pdfAnswered(t, termimage.Sixel, 140, 40)
	s.press("k", "enter")
	s.waitFocus(paneSource)
	s.press("v")
	s.waitText("p. 2 (1/2) · sixel")
	covered := func() bool {
		s.probe.mu.Lock()
		defer s.probe.mu.Unlock()
		return s.probe.model.page.Covered()
	}
	s.settle()
	if covered() {
		t.Fatal("the page is covered with nothing over it")
	}
	s.press("f1")
	s.waitText("close help")
	if !covered() {
		t.Error("the page is not covered under the help")
	}
	s.press("esc")
	s.waitGone("close help")
	if covered() {
		t.Error("the page is still covered with the help closed")
	}
	s.press("tab") // another pane's keys: the page stays in sight
	s.waitFocus(paneLibrary)
	if covered() {
		t.Error("the page is covered when the keyboard moves to the library")
	}
	s.finish()
}
