package pdffile

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ledongthuc/pdf"
)

// Interpret closes off a hex string left open at the end of content, so
// the library's lexer stops (with an error) instead of reading forever.
func TestInterpretOpenHexString(t *testing.T) {
	t.Parallel()
	done := make(chan bool, 1)
	go func() {
		defer func() { _ = recover(); done <- true }()
		if err := Interpret([]byte("BT /F1 10 Tf <414"), func(*pdf.Stack, string) {}); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the lexer did not stop")
	}
}

// Streams the library would panic on, or allocate for without bound, are
// refused with a *Damage that says why.
func TestReadStreamFilters(t *testing.T) {
	t.Parallel()
	for dict, want := range map[string]string{
		"/Filter /LZWDecode":                                                        "compressed with LZWDecode",
		"/Filter [/ASCII85Decode /RunLengthDecode]":                                 "compressed with RunLengthDecode",
		"/Filter /FlateDecode /DecodeParms << /Predictor 15 >>":                     "predictor 15",
		"/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4000000000 >>": "4000000000 columns",
		"/Filter /ASCII85Decode /DecodeParms << /K 1 >>":                            "parameters",
		"/Filter 7": "not one this reader knows",
	} {
		v, err := memObject([]byte("<<"+dict+" /Length 4>>\nstream\n"), []byte("abcd"), []byte("\nendstream"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadStream(v, 1<<20)
		var d *Damage
		if !errors.As(err, &d) || !strings.Contains(d.What, want) {
			t.Errorf("%s: err = %v, want a Damage saying %q", dict, err, want)
		}
	}
	v, err := memObject([]byte("<</Length 4>>\nstream\n"), []byte("abcd"), []byte("\nendstream"))
	if err != nil {
		t.Fatal(err)
	}
	if data, err := ReadStream(v, 3); err != nil || string(data) != "abc" {
		t.Errorf("limited read = %q, %v", data, err)
	}
}
