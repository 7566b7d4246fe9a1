package main

import (
	"strings"
	"testing"
)

func TestBarCells(t *testing.T) {
	for _, c := range []struct {
		done, total, filled int
	}{{0, 0, 0}, {0, 10, 0}, {5, 10, 12}, {10, 10, 24}, {12, 10, 24}, {-1, 10, 0}} {
		got := barCells(c.done, c.total)
		if n := strings.Count(got, "█"); n != c.filled || strings.Count(got, "░") != 24-c.filled {
			t.Errorf("barCells(%d, %d) = %q, want %d of 24 filled", c.done, c.total, got, c.filled)
		}
	}
}

func TestLiveLine(t *testing.T) {
	var b strings.Builder
	l := liveLine{w: &b, enabled: true}
	if !l.due(false) {
		t.Fatal("the first update is not drawn")
	}
	l.draw("one")
	if l.due(false) {
		t.Error("an update right after the last is drawn")
	}
	if !l.due(true) {
		t.Error("the final update is not drawn")
	}
	l.draw("two")
	l.finish()
	if want := "\r\x1b[2Kone\r\x1b[2Ktwo\r\x1b[2K"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	var quiet strings.Builder
	off := liveLine{w: &quiet}
	if off.due(true) {
		t.Error("a line off a terminal is drawn")
	}
	off.finish()
	if quiet.Len() != 0 {
		t.Errorf("a line off a terminal wrote %q", quiet.String())
	}
}
