package source

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/tui/internal/draw"
)

// markerPaints draw classes as visible brackets instead of SGR, so a test
// can read where a highlight landed.
var markerPaints = [numClasses]draw.Paint{
	clsText:      {},
	clsFaint:     draw.NewPaint("‹", "›"),
	clsHighlight: draw.NewPaint("«", "»"),
	clsMatch:     draw.NewPaint("{", "}"),
	clsCurrent:   draw.NewPaint("<", ">"),
}

// drawRows lays the whole of text out at width and renders every row with
// marker paints, trailing padding trimmed.
func drawRows(t *testing.T, text string, width int, mk marks) []string {
	t.Helper()
	ix := newLineIndex(text, nil)
	var out []string
	for i := range ix.blocks() {
		s, base := ix.block(i)
		rows := wrapBlock(nil, s, width)
		for r := range rows {
			to := len(s)
			if r+1 < len(rows) {
				to = int(rows[r+1])
			}
			var b strings.Builder
			renderRow(&b, s, base, int(rows[r]), to, width, &mk, &markerPaints)
			line := b.String()
			// Every row is exactly width cells before trimming.
			plain := strings.NewReplacer("‹", "", "›", "", "«", "", "»", "", "{", "", "}", "", "<", "", ">", "").Replace(line)
			if got := ansi.StringWidth(plain); got != width {
				t.Errorf("row %q is %d cells wide, want %d", line, got, width)
			}
			out = append(out, strings.TrimRight(line, " "))
		}
	}
	return out
}

func rangeOf(text, sub string) Range {
	i := strings.Index(text, sub)
	if i < 0 {
		panic("no " + sub)
	}
	return Range{i, i + len(sub)}
}

func TestLineIndex(t *testing.T) {
	t.Parallel()
	ix := newLineIndex("alpha\nbeta\r\n\fgamma\n\ndelta", nil)
	var got []string
	for i := range ix.blocks() {
		s, _ := ix.block(i)
		got = append(got, s)
	}
	want := []string{"alpha", "beta", "", "gamma", "", "delta"}
	if !slices.Equal(got, want) {
		t.Errorf("blocks = %q, want %q", got, want)
	}
	if b := ix.blockAt(strings.Index(ix.text, "mma")); b != 3 {
		t.Errorf("blockAt(gamma) = %d, want 3", b)
	}

	// A trailing newline does not add an empty last line; an empty text
	// still has one block.
	if n := newLineIndex("one\n", nil).blocks(); n != 1 {
		t.Errorf("%q has %d blocks, want 1", "one\n", n)
	}
	if n := newLineIndex("", nil).blocks(); n != 1 {
		t.Errorf("empty text has %d blocks, want 1", n)
	}

	// A very long line is cut into blocks that tile it exactly, at spaces.
	long := strings.Repeat("word ", 3000) + strings.Repeat("日", 3000)
	ix = newLineIndex(long, nil)
	if ix.blocks() < 2 {
		t.Fatalf("a %d-byte line was not cut", len(long))
	}
	var joined strings.Builder
	for i := range ix.blocks() {
		s, base := ix.block(i)
		if len(s) > maxBlock {
			t.Errorf("block %d is %d bytes", i, len(s))
		}
		if base != joined.Len() {
			t.Fatalf("block %d starts at %d, want %d", i, base, joined.Len())
		}
		if !strings.HasPrefix(s, "日") && i > 0 && i < 3 && !strings.HasPrefix(s, "word") {
			t.Errorf("block %d cut mid-word: %q…", i, s[:10])
		}
		joined.WriteString(s)
	}
	if joined.String() != long {
		t.Error("blocks do not tile the long line")
	}
}

func TestWrapWords(t *testing.T) {
	t.Parallel()
	got := drawRows(t, "The quick brown fox jumps over the lazy dog.", 12, marks{current: -1})
	want := []string{"The quick", "brown fox", "jumps over", "the lazy", "dog."}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// A word longer than a row is broken anywhere.
	got = drawRows(t, "antidisestablishmentarianism is long", 10, marks{current: -1})
	want = []string{"antidisest", "ablishment", "arianism", "is long"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Tabs become spaces to the next stop of 4.
	got = drawRows(t, "a\tb\tc", 20, marks{current: -1})
	if want := []string{"a   b   c"}; !slices.Equal(got, want) {
		t.Errorf("tabs: got %q, want %q", got, want)
	}
}

func TestHighlightMidLineAcrossWrap(t *testing.T) {
	t.Parallel()
	text := "The quick brown fox jumps over the lazy dog."
	mk := marks{primary: rangeOf(text, "brown fox jumps"), current: -1}
	got := drawRows(t, text, 12, mk)
	want := []string{"The quick", "«brown fox »", "«jumps» over", "the lazy", "dog."}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestHighlightAcrossParagraphs(t *testing.T) {
	t.Parallel()
	text := "First para ends here.\n\nSecond para.\nThird starts and goes on."
	mk := marks{primary: Range{strings.Index(text, "ends"), strings.Index(text, " and")}, current: -1}
	got := drawRows(t, text, 30, mk)
	want := []string{"First para «ends here.»", "", "«Second para.»", "«Third starts» and goes on."}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestHighlightCJK(t *testing.T) {
	t.Parallel()
	// Each of these is 3 bytes and 2 cells; rows of 7 cells hold 3.
	text := "日本語のテキストです"
	mk := marks{primary: rangeOf(text, "のテキ"), current: -1}
	got := drawRows(t, text, 7, mk)
	want := []string{"日本語", "«のテキ»", "ストで", "す"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestHighlightCombiningMarks(t *testing.T) {
	t.Parallel()
	// "é" as e + U+0301 is one cell; "café" is 4 cells however spelt.
	text := "un cafe\u0301 noir"
	mk := marks{primary: rangeOf(text, "cafe\u0301"), current: -1}
	got := drawRows(t, text, 8, mk)
	want := []string{"un «cafe\u0301»", "noir"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestEscapeSequencesNeutralised(t *testing.T) {
	t.Parallel()
	// An escape sequence in the text shows as harmless text, and a
	// highlight around it still lands on the right cells, though ESC (1
	// byte) is drawn as ␛ (3 bytes).
	text := "plain \x1b[31mred\x1b[0m after\x07bell"
	mk := marks{primary: rangeOf(text, "\x1b[31mred"), current: -1}
	got := drawRows(t, text, 40, mk)
	want := []string{"plain «␛[31mred»␛[0m after␇bell"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, row := range got {
		if strings.ContainsAny(row, "\x1b\x07") {
			t.Errorf("row %q carries a raw control character", row)
		}
	}
	// Bidi overrides are dropped, invalid UTF-8 shown as U+FFFD.
	got = drawRows(t, "a\u202eb\xffc", 10, marks{current: -1})
	if want := []string{"ab\uFFFDc"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMarksPriority(t *testing.T) {
	t.Parallel()
	text := "one two three four five six"
	// matches "o" in one/two/four; current is the one in "two".
	mk := marks{
		primary:  rangeOf(text, "two three"),
		others:   []Range{rangeOf(text, "five")},
		matches:  []int32{int32(strings.Index(text, "o")), int32(strings.Index(text, "wo") + 1), int32(strings.Index(text, "our"))},
		matchLen: 1,
		current:  1,
	}
	got := drawRows(t, text, 40, mk)
	want := []string{"{o}ne «tw»<o>« three» f{o}ur ‹five› six"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestWideCharDoesNotSplitAtRowEnd(t *testing.T) {
	t.Parallel()
	// 5 cells: "ab" + 日 (2) = 4, then 本 would need cells 5-6.
	got := drawRows(t, "ab日本", 5, marks{current: -1})
	want := []string{"ab日", "本"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"Hello WORLD", "ÀÉÎ straße İstanbul ΣΑΣ", "line\nbreak\ttab\fpage", "\xff\xfeBAD"} {
		f := fold(s)
		if len(f) != len(s) {
			t.Errorf("fold(%q) changed length %d → %d", s, len(s), len(f))
		}
	}
	if got := fold("Hello\nWORLD"); got != "hello world" {
		t.Errorf("fold = %q", got)
	}
	if got := fold("ÀÉÎ"); got != "àéî" {
		t.Errorf("fold = %q", got)
	}
	text := "The Cat sat.\nTHE CAT ran; the cat slept. concatenate"
	got := findAll(fold(text), fold("the cat"))
	if len(got) != 3 {
		t.Fatalf("matches = %v, want 3", got)
	}
	for _, s := range got {
		if w := strings.ToLower(text[s : int(s)+7]); w != "the cat" {
			t.Errorf("match at %d is %q", s, w)
		}
	}
	// A phrase matches across a line break.
	if got := findAll(fold(text), fold("sat. the")); len(got) != 1 {
		t.Errorf("phrase across a line break: %v", got)
	}
}

// FuzzLayout checks, for any text, width and highlight, that every row is
// exactly the pane's width, that rows tile each line, and that nothing
// reaching the terminal is a control character.
func FuzzLayout(f *testing.F) {
	f.Add("The quick brown fox.\nJumps.", 12, 4, 15)
	f.Add("日本語のテキスト\tcafe\u0301 \x1b[31mred\x1b[0m\r\n\fnext", 7, 2, 30)
	f.Add("a\u202eb\xffc\x00\x7f\u0085 zero\u200dwidth", 20, 0, 5)
	f.Add(strings.Repeat("long ", 2000), 33, 100, 9000)
	// A control character followed by a combining mark or a variation
	// selector: the control's picture and the mark are one cluster.
	f.Add("a\x01\u302eb", 10, 0, 0)
	f.Add("x\x1f\ufe0f y", 4, 0, 3)
	f.Add("\x7f\u0301\u0085\ufe0e", 7, 0, 0)
	// A mark after a space or a tab joins it when drawn, and a variation
	// selector can widen the space to two cells.
	f.Add(" \ufe0f000", 83, 0, 0)
	f.Add("a\t\ufe0f\u0301b \u20e3", 9, 1, 4)
	f.Fuzz(func(t *testing.T, text string, width, start, end int) {
		width = 1 + abs(width)%200
		ix := newLineIndex(text, nil)
		mk := marks{primary: Range{start, end}.clip(len(text)), current: -1}
		paints := [numClasses]draw.Paint{clsHighlight: draw.NewPaint("\x01", "\x02")}
		covered := 0
		for i := range ix.blocks() {
			s, base := ix.block(i)
			if base < covered {
				t.Fatalf("block %d starts at %d, before %d", i, base, covered)
			}
			covered = base + len(s)
			rows := wrapBlock(nil, s, width)
			for r := range rows {
				if r > 0 && rows[r] <= rows[r-1] || int(rows[r]) > len(s) {
					t.Fatalf("rows %v of %q do not advance", rows, s)
				}
				to := len(s)
				if r+1 < len(rows) {
					to = int(rows[r+1])
				}
				var b strings.Builder
				renderRow(&b, s, base, int(rows[r]), to, width, &mk, &paints)
				out := strings.NewReplacer("\x01", "", "\x02", "").Replace(b.String())
				if w := ansi.StringWidth(out); w != width {
					t.Fatalf("row %q is %d cells, want %d", out, w, width)
				}
				for _, c := range out {
					if c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 || c >= 0x202a && c <= 0x202e {
						t.Fatalf("row %q carries control %U", out, c)
					}
				}
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
