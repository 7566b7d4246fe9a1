package pdffile

import (
	"compress/flate"
	"context"
	"errors"
	"testing"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	file := []byte("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n5 0 obj\n(x)\nendobj\n")
	for _, c := range []struct {
		x    any
		at   int64
		what string
	}{
		{"malformed PDF: reading at offset 40: EOF", 40, "the file ends early"},
		{"malformed PDF: reading at offset 40: flate: corrupt input before offset 3", 40, "compressed data is corrupt"},
		{errors.New("loading 5 0 R: found 1 0"), 30, "object 5 is not where the cross-reference table puts it"},
		{errors.New("unexpected delimiter ')'"), -1, "an unexpected “)”"},
		{flate.CorruptInputError(3), -1, "compressed data is corrupt"},
		{&Damage{At: 7, What: "ours"}, 7, "ours"},
		{"malformed PDF: something new \x1b[31m with \xff bytes", -1, "malformed PDF: something new 31m with  bytes"},
	} {
		var d *Damage
		if !errors.As(describe(c.x, file), &d) || d.At != c.at || d.What != c.what {
			t.Errorf("describe(%q) = %+v, want at %d %q", c.x, d, c.at, c.what)
		}
	}
	if err := describe(context.Canceled, file); err != context.Canceled {
		t.Errorf("a cancelled read described as %v", err)
	}
}
