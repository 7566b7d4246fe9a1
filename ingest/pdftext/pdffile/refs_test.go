package pdffile

import (
	"fmt"
	"testing"
)

func TestArrayRefs(t *testing.T) {
	t.Parallel()
	v, err := memObject([]byte(`[3 0 R <</Type /Page /Parent 2 0 R>> 12 5 R (a ] b) [1 2] 7]`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(ArrayRefs(v))
	if want := "[3 0  12 5   ]"; got != want {
		t.Errorf("ArrayRefs = %q, want %q", got, want)
	}
	// null inside: the reader prints it "<nil>"
	v, err = memObject([]byte(`[null 4 0 R [null] << /A null >>]`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ArrayRefs(v)); got != "[ 4 0  ]" {
		t.Errorf("ArrayRefs(%s) = %q", v, got)
	}
}

func TestRefKeys(t *testing.T) {
	t.Parallel()
	v, err := memObject([]byte("<< /F1 12 0 R /F2 7 1 R /F3 << /Type /Font >> >>"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(RefKeys(v))
	if got != "map[F1:12 0 F2:7 1]" {
		t.Errorf("RefKeys = %s", got)
	}
	// Only the dictionary's own entries: not those of a nested
	// dictionary, array or string.
	v, err = memObject([]byte("<< /A << /Contents 9 0 R >> /Contents 5 0 R /K [1 0 R] /S (x /F 3 0 R) /Z 4 0 R >>"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(RefKeys(v)); got != "map[Contents:5 0 Z:4 0]" {
		t.Errorf("RefKeys(nested) = %s", got)
	}
	// a stream's dictionary, and entries after a null
	v, err = memObject([]byte("<< /N null /Length 3 /Font 8 0 R >>\nstream\nabc\nendstream"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(RefKeys(v)); got != "map[Font:8 0]" {
		t.Errorf("RefKeys(stream %s) = %s", v, got)
	}
}
