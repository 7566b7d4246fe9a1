package structure

import "testing"

func TestSpanValid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    Span
		n    int
		want bool
	}{
		{Span{Start: 0, End: 5}, 5, true},
		{Span{Start: 2, End: 3}, 5, true},
		{Span{Start: 3, End: 3}, 5, false}, // empty
		{Span{Start: 4, End: 6}, 5, false}, // past the text
		{Span{Start: -1, End: 2}, 5, false},
	} {
		if got := c.s.Valid(c.n); got != c.want || c.s.Len() != c.s.End-c.s.Start {
			t.Errorf("%+v.Valid(%d) = %v, want %v", c.s, c.n, got, c.want)
		}
	}
}

// TestFlags: the kinds ranking demotes are noise, a table row alone is
// not; the names are what tools print.
func TestFlags(t *testing.T) {
	t.Parallel()
	for f, want := range map[Flags]struct {
		noise bool
		name  string
	}{
		0:                           {false, ""},
		FlagTableRow:                {false, "table-row"},
		FlagHeading:                 {true, "heading"},
		FlagContents | FlagCode:     {true, "contents+code"},
		FlagFurniture:               {true, "furniture"},
		FlagFragment | FlagTableRow: {true, "fragment+table-row"},
	} {
		if f.Noise() != want.noise || f.String() != want.name {
			t.Errorf("%08b: noise %v, name %q; want %v, %q", f, f.Noise(), f.String(), want.noise, want.name)
		}
	}
}
