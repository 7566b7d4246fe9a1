package themes

import (
	"errors"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

func allThemes() []*Styles {
	return []*Styles{Dark(), Light(), HighContrast(), NoColor()}
}

// styleFields returns every lipgloss.Style in s, by field path, including
// those nested in structs (help.Styles, textinput.Styles).
func styleFields(s *Styles) map[string]lipgloss.Style {
	out := map[string]lipgloss.Style{}
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if st, ok := v.Interface().(lipgloss.Style); ok {
			out[path] = st
			return
		}
		if v.Kind() != reflect.Struct {
			return
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			walk(path+"."+f.Name, v.Field(i))
		}
	}
	walk("Styles", reflect.ValueOf(*s))
	return out
}

var sgrRE = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// sgrAttrs returns the SGR attribute codes in out, with the arguments of
// extended colours (38;2;r;g;b, 48;5;n) folded into their 38/48.
func sgrAttrs(out string) []int {
	var codes []int
	for _, m := range sgrRE.FindAllStringSubmatch(out, -1) {
		params := strings.Split(m[1], ";")
		for i := 0; i < len(params); i++ {
			n, err := strconv.Atoi(params[i])
			if err != nil {
				continue
			}
			codes = append(codes, n)
			if n == 38 || n == 48 || n == 58 {
				if i+1 < len(params) && params[i+1] == "5" {
					i += 2
				} else if i+1 < len(params) && params[i+1] == "2" {
					i += 4
				}
			}
		}
	}
	return codes
}

func isColourCode(n int) bool {
	return n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107 || n == 58
}

func has(codes []int, want int) bool {
	for _, c := range codes {
		if c == want {
			return true
		}
	}
	return false
}

func TestEveryThemeBuildsEveryStyle(t *testing.T) {
	t.Parallel()
	for _, s := range allThemes() {
		fields := styleFields(s)
		if len(fields) < 30 {
			t.Fatalf("%s: found only %d styles; the reflection walk is broken", s.Name, len(fields))
		}
		for path, st := range fields {
			out := st.Render("citelens")
			if !strings.Contains(ansiStrip(out), "citelens") {
				t.Errorf("%s %s renders %q, losing the text", s.Name, path, out)
			}
		}
		// The marks the reader depends on must look different from body
		// text and from each other.
		marks := map[string]string{
			"Text":           s.Text.Render("x"),
			"Highlight":      s.Highlight.Render("x"),
			"FaintHighlight": s.FaintHighlight.Render("x"),
			"Match":          s.Match.Render("x"),
			"CurrentMatch":   s.CurrentMatch.Render("x"),
		}
		seen := map[string]string{}
		for name, out := range marks {
			if other, dup := seen[out]; dup {
				t.Errorf("%s: %s and %s render the same (%q)", s.Name, name, other, out)
			}
			seen[out] = name
		}
		if s.Pane.Render("x") == s.PaneFocused.Render("x") {
			t.Errorf("%s: focused and unfocused panes look the same", s.Name)
		}
		r, err := s.MarkdownRenderer(40)
		if err != nil {
			t.Fatalf("%s: glamour: %v", s.Name, err)
		}
		md, err := r.Render("# Title\n\nSome *emphasis*, `code` and a [link](https://example.org).\n\n- one\n- two\n")
		if err != nil {
			t.Fatalf("%s: glamour render: %v", s.Name, err)
		}
		if !strings.Contains(ansiStrip(md), "emphasis") {
			t.Errorf("%s: markdown lost its text: %q", s.Name, md)
		}
	}
}

func ansiStrip(s string) string { return sgrRE.ReplaceAllString(s, "") }

func TestColourThemesColourTheHighlight(t *testing.T) {
	t.Parallel()
	for _, s := range []*Styles{Dark(), Light(), HighContrast()} {
		codes := sgrAttrs(s.Highlight.Render("x"))
		if !has(codes, 48) && !slicesAny(codes, func(c int) bool { return c >= 40 && c <= 47 || c >= 100 && c <= 107 }) {
			t.Errorf("%s: highlight has no background colour: %v", s.Name, codes)
		}
	}
}

func slicesAny(codes []int, f func(int) bool) bool {
	for _, c := range codes {
		if f(c) {
			return true
		}
	}
	return false
}

func TestNoColorMarksWithAttributes(t *testing.T) {
	t.Parallel()
	s := NoColor()
	if !s.Plain {
		t.Fatal("NoColor is not marked Plain")
	}
	want := map[string][]int{
		"Highlight":      {7},       // reverse video
		"FaintHighlight": {4},       // underline
		"Match":          {1, 4},    // bold underline
		"CurrentMatch":   {1, 4, 7}, // all three
		"Selection":      {7},
	}
	got := map[string]string{
		"Highlight":      s.Highlight.Render("cited"),
		"FaintHighlight": s.FaintHighlight.Render("cited"),
		"Match":          s.Match.Render("cited"),
		"CurrentMatch":   s.CurrentMatch.Render("cited"),
		"Selection":      s.Selection.Render("cited"),
	}
	for name, codes := range want {
		attrs := sgrAttrs(got[name])
		for _, c := range codes {
			if !has(attrs, c) {
				t.Errorf("no-color %s = %q: missing SGR %d", name, got[name], c)
			}
		}
	}
	// Reverse video is the cited text's, a match's and the selection's
	// alone: nothing else (a statement's mark, a warning) is as loud.
	for path, st := range styleFields(s) {
		loud := map[string]bool{"Styles.Highlight": true, "Styles.CurrentMatch": true, "Styles.Selection": true}
		if has(sgrAttrs(st.Render("x")), 7) && !loud[path] {
			t.Errorf("no-color %s is reverse video, as loud as the cited text", path)
		}
	}
	// Focus must show without colour: a different border shape.
	if strings.Contains(s.PaneFocused.Render("x"), "╭") {
		t.Error("no-color focused pane uses the unfocused rounded border")
	}
	// And no style anywhere may carry colour.
	for path, st := range styleFields(s) {
		for _, c := range sgrAttrs(st.Render("x y")) {
			if isColourCode(c) {
				t.Errorf("no-color %s renders colour SGR %d: %q", path, c, st.Render("x y"))
			}
		}
	}
	r, err := s.MarkdownRenderer(40)
	if err != nil {
		t.Fatal(err)
	}
	md, err := r.Render("# Title\n\nSome *emphasis* and `code`.\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sgrAttrs(md) {
		if isColourCode(c) {
			t.Errorf("no-color markdown renders colour SGR %d: %q", c, md)
		}
	}
}

func TestThemeByName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"dark", "Light", " high-contrast ", "no-color", "hc"} {
		s, err := ThemeByName(name)
		if err != nil {
			t.Errorf("ThemeByName(%q): %v", name, err)
			continue
		}
		if s == nil || s.Name == "" {
			t.Errorf("ThemeByName(%q) returned an unnamed theme", name)
		}
	}
	if s, _ := ThemeByName("LIGHT"); s.Dark {
		t.Error("light theme claims a dark background")
	}
	_, err := ThemeByName("solarized")
	if !errors.Is(err, ErrUnknownTheme) {
		t.Fatalf("unknown theme: err = %v, want ErrUnknownTheme", err)
	}
	if !strings.Contains(err.Error(), "high-contrast") {
		t.Errorf("error %q does not list the themes there are", err)
	}
	if _, err := ThemeByName("auto"); err == nil {
		t.Error("ThemeByName(auto) should leave auto to a Selector")
	}
}

func TestSelector(t *testing.T) {
	t.Parallel()
	auto, err := NewSelector("", false)
	if err != nil {
		t.Fatal(err)
	}
	if !auto.Auto() {
		t.Error("empty name is not auto")
	}
	if got := auto.Initial().Name; got != NameDark {
		t.Errorf("initial auto theme = %s, want dark", got)
	}
	if got := auto.ForBackground(false).Name; got != NameLight {
		t.Errorf("auto on a light background = %s", got)
	}
	if got := auto.ForBackground(true).Name; got != NameDark {
		t.Errorf("auto on a dark background = %s", got)
	}

	nc, _ := NewSelector("auto", true)
	if nc.Auto() {
		t.Error("auto under NO_COLOR still wants the background")
	}
	if got := nc.ForBackground(false).Name; got != NameNoColor {
		t.Errorf("auto under NO_COLOR = %s", got)
	}

	fixed, _ := NewSelector("light", true)
	if fixed.Auto() || fixed.ForBackground(true).Name != NameLight {
		t.Error("an explicit theme should win over NO_COLOR and the background")
	}
	if _, err := NewSelector("nope", false); !errors.Is(err, ErrUnknownTheme) {
		t.Errorf("NewSelector(nope): %v", err)
	}
}

func TestNoColorRequested(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if NoColorRequested(get) {
		t.Error("unset NO_COLOR requested no colour")
	}
	env["NO_COLOR"] = ""
	if NoColorRequested(get) {
		t.Error("empty NO_COLOR requested no colour")
	}
	env["NO_COLOR"] = "1"
	if !NoColorRequested(get) {
		t.Error("NO_COLOR=1 ignored")
	}
}

// TestWithEnv: COLORFGBG decides the auto theme until the terminal
// answers (inside tmux 3.3, which answers no background query, it never
// does): a light background is the light theme; an explicit theme and
// NO_COLOR still win.
func TestWithEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "COLORFGBG" {
				return v
			}
			return ""
		}
	}
	auto, err := NewSelector("", false)
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]*Styles{
		"0;15": Light(), "0;default;15": Light(), "0;7": Light(),
		"15;0": Dark(), "7;8": Dark(), "": Dark(), "0;default": Dark(), "junk": Dark(),
	} {
		if got := auto.WithEnv(env(v)).Initial(); got.Name != want.Name {
			t.Errorf("COLORFGBG=%q: %s theme, want %s", v, got.Name, want.Name)
		}
	}
	if got := auto.WithEnv(env("0;15")).ForBackground(true); got.Name != Dark().Name {
		t.Errorf("the terminal's answer (dark) loses to COLORFGBG: %s", got.Name)
	}
	dark, _ := NewSelector("dark", false)
	if got := dark.WithEnv(env("0;15")).Initial(); got.Name != Dark().Name {
		t.Errorf("--theme dark loses to COLORFGBG: %s", got.Name)
	}
	none, _ := NewSelector("", true)
	if got := none.WithEnv(env("0;15")).Initial(); got.Name != NoColor().Name {
		t.Errorf("NO_COLOR loses to COLORFGBG: %s", got.Name)
	}
}
