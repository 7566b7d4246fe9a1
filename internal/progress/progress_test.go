package progress

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		done, total, width int
		want               string
	}{
		{0, 0, 4, "░░░░"}, {0, 10, 4, "░░░░"}, {5, 10, 4, "██░░"}, {10, 10, 4, "████"}, {12, 10, 4, "████"},
		{-1, 10, 4, "░░░░"}, {5, 16, 8, "██▌░░░░░"}, {1, 64, 8, "▏░░░░░░░"}, {3, 3, 0, ""},
	} {
		got := Bar(c.done, c.total, c.width)
		if got != c.want || utf8.RuneCountInString(got) != c.width {
			t.Errorf("Bar(%d, %d, %d) = %q, want %q", c.done, c.total, c.width, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	l := NewLine(&b, true)
	if !l.Due(false) {
		t.Fatal("the first update is not drawn")
	}
	l.Draw("one")
	if l.Due(false) {
		t.Error("an update right after the last is drawn")
	}
	if !l.Due(true) {
		t.Error("the final update is not drawn")
	}
	l.Draw("two")
	l.Finish()
	l.Finish()
	if want := "\r\x1b[2Kone\r\x1b[2Ktwo\r\x1b[2K"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	var quiet strings.Builder
	off := NewLine(&quiet, false)
	if off.Due(true) {
		t.Error("a line off a terminal is drawn")
	}
	off.Draw("x")
	off.Finish()
	if quiet.Len() != 0 {
		t.Errorf("a line off a terminal wrote %q", quiet.String())
	}
}
