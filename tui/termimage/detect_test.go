package termimage_test

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/kitty"

	"github.com/citelens/citelens/tui/termimage"
)

// answers decodes what a terminal writes back with ultraviolet's input
// decoder, as bubbletea does, into the messages a program receives.
func answers(t *testing.T, raw string) []tea.Msg {
	t.Helper()
	var d uv.EventDecoder
	var msgs []tea.Msg
	b := []byte(raw)
	for len(b) > 0 {
		n, ev := d.Decode(b)
		if n == 0 {
			t.Fatalf("cannot decode %q", b)
		}
		b = b[n:]
		if v, ok := ev.(uv.TerminalVersionEvent); ok {
			ev = tea.TerminalVersionMsg(v) // as bubbletea translates it
		}
		msgs = append(msgs, ev)
	}
	return msgs
}

func TestDetector(t *testing.T) {
	t.Parallel()
	const (
		kittyOK = "\x1b_Gi=31;OK\x1b\\"
		cell    = "\x1b[6;20;10t"
		da1     = "\x1b[?62;22c"
		da1Six  = "\x1b[?63;1;2;4;6;9;15;16;22;28c"
	)
	version := func(name string) string { return "\x1bP>|" + name + "\x1b\\" }
	for _, c := range []struct {
		name, reply string
		env         map[string]string
		want        termimage.Protocol
	}{
		{"kitty", kittyOK + version("kitty(0.39.1)") + cell + da1, nil, termimage.Kitty},
		{"kitty before placeholders (Debian 12's)", kittyOK + version("kitty(0.26.5)") + cell + da1, nil, termimage.Blocks},
		{"kitty 0.28", kittyOK + version("kitty(0.28.0)") + cell + da1, nil, termimage.Kitty},
		{"kitty 0.29.0, placeholders broken", kittyOK + version("kitty(0.29.0)") + cell + da1, nil, termimage.Blocks},
		{"ghostty", kittyOK + version("ghostty 1.1.3") + da1, nil, termimage.Kitty},
		{"wezterm", kittyOK + version("WezTerm 20240203") + da1Six, nil, termimage.ITerm2},
		{"konsole by name", kittyOK + version("Konsole 24.02") + da1Six, nil, termimage.Sixel},
		{"konsole by environment", kittyOK + da1, map[string]string{"KONSOLE_VERSION": "230800"}, termimage.Blocks},
		{"iterm2", version("iTerm2 3.5.0") + da1, nil, termimage.ITerm2},
		{"xterm -ti vt340", version("XTerm(379)") + cell + da1Six, nil, termimage.Sixel},
		{"xterm", version("XTerm(379)") + da1, nil, termimage.Blocks},
		{"tmux", version("tmux 3.3a") + da1, nil, termimage.Blocks},
		{"kitty query refused", "\x1b_Gi=31;ENOTSUPPORTED:no\x1b\\" + da1, nil, termimage.Blocks},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := termimage.Detector{Getenv: func(k string) string { return c.env[k] }}
			for _, m := range answers(t, c.reply) {
				if !d.Update(m) {
					t.Errorf("%T %v not taken as an answer", m, m)
				}
			}
			if !d.Done() {
				t.Fatal("not done after DA1")
			}
			if got := d.Protocol(); got != c.want {
				t.Errorf("protocol %v, want %v", got, c.want)
			}
		})
	}
	var d termimage.Detector
	if w, h := d.CellSize(80, 24); w != 0 || h != 0 {
		t.Errorf("cell size %d×%d before any answer", w, h)
	}
	for _, m := range answers(t, "\x1b[4;480;800t") { // the window: 800×480 pixels
		d.Update(m)
	}
	if w, h := d.CellSize(80, 24); w != 10 || h != 20 {
		t.Errorf("cell size from the window %d×%d, want 10×20", w, h)
	}
	for _, m := range answers(t, "\x1b[6;18;9t") {
		d.Update(m)
	}
	if w, h := d.CellSize(80, 24); w != 9 || h != 18 {
		t.Errorf("cell size %d×%d, want the terminal's own 9×18", w, h)
	}
	if d.Update(tea.KeyPressMsg{Code: 'v'}) || d.Update(uv.KittyGraphicsEvent{Options: kitty.Options{ID: 5}}) {
		t.Error("a key press or another image's answer was taken as an answer")
	}
	if d.Done() {
		t.Error("done before DA1")
	}
	d.GiveUp()
	if !d.Done() || d.Protocol() != termimage.Blocks {
		t.Error("a detector given up on is not done with blocks")
	}
}

func TestQueries(t *testing.T) {
	t.Parallel()
	q := termimage.Queries()
	if !strings.HasPrefix(q, "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\") || !strings.HasSuffix(q, ansi.RequestPrimaryDeviceAttributes) {
		t.Errorf("Queries = %q: the kitty query first, DA1 last", q)
	}
}
