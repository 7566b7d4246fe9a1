package engine_test

import (
	"errors"
	"testing"

	"github.com/citelens/citelens/engine"
)

func TestIntOption(t *testing.T) {
	for _, c := range []struct {
		val  string
		want int
		err  string
	}{
		{"1", 1, ""},
		{" 20 ", 20, ""},
		{" 0", 0, `invalid option: k=" 0": give a whole number of chunks, 1 to 20`}, // quoted as given
		{"21", 0, `invalid option: k="21": give a whole number of chunks, 1 to 20`},
		{"x", 0, `invalid option: k="x": give a whole number of chunks, 1 to 20`},
	} {
		n, err := engine.IntOption("k", c.val, 1, 20, "a whole number of chunks")
		switch {
		case c.err == "" && (err != nil || n != c.want):
			t.Errorf("IntOption(%q) = %d, %v; want %d", c.val, n, err, c.want)
		case c.err != "" && (!errors.Is(err, engine.ErrOption) || err.Error() != c.err):
			t.Errorf("IntOption(%q) error = %v; want %s", c.val, err, c.err)
		}
	}
}

func TestUnknownOption(t *testing.T) {
	err := engine.UnknownOption("rag", "l_max", "", []string{"k", "level"})
	if want := `invalid option: "l_max"; the rag strategy takes k, level`; !errors.Is(err, engine.ErrOption) || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	err = engine.UnknownOption("longcite", "k", " (not here)", []string{"format"})
	if want := `invalid option: "k" (not here); the longcite strategy takes format`; err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
