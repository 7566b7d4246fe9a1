package pdffile

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/citelens/citelens/ingest/doctest"
)

// FuzzOpen feeds damaged variants of the hostile PDFs to Open (then
// Rebuild, as the extractor does), the page walk and the stream reader:
// each must return, without a panic, within the test's bound, and fail
// only with ErrMalformed or ErrEncrypted. The fuzzer mutates a short list
// of edits applied to a file (doctest.Damaged), which keeps what it finds
// quick to minimize.
func FuzzOpen(f *testing.F) {
	var bases [][]byte
	for _, h := range doctest.HostilePDFs() {
		bases = append(bases, h.Data)
	}
	bases = append(bases, doctest.ObjStmPDF("Packed objects are read.", ""), doctest.ManyPagesPDF(3))
	for i, b := range bases {
		f.Add(uint8(i), []byte(nil))
		f.Add(uint8(i), doctest.Flips(b, 20, 97))
	}
	f.Fuzz(func(t *testing.T, base uint8, edits []byte) {
		checkOpen(t, doctest.Damaged(bases[int(base)%len(bases)], edits))
	})
}

// checkOpen fails unless data is read or refused within the test's
// bound, without a panic, and refused only with ErrMalformed or
// ErrEncrypted.
func checkOpen(t *testing.T, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	doctest.Within(t, 20*time.Second, func() { _, _, err = readAll(ctx, data) })
	if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEncrypted) {
		t.Fatalf("unexpected error %v", err)
	}
}

// TestFuzzOpenFinds replays what FuzzOpen found when it fed whole files,
// kept in testdata/finds in the fuzzer's corpus format.
func TestFuzzOpenFinds(t *testing.T) {
	t.Parallel()
	doctest.ReplayFinds(t, "testdata/finds", checkOpen)
}

// FuzzLexer reads an object from any offset of any bytes, as the library
// may when an object stream's header points anywhere: the lexer must not
// panic, and every input on which it would read a hex string forever
// must be one that openHexAtEnd refuses.
func FuzzLexer(f *testing.F) {
	for _, s := range []string{"1 0 << /A <4142", "<< /Prev 12 /Size 3 >> startxref", "(a\\)b) [1 2 0 R] <41 4", "% comment\n/N#41 3.5 true null", "<<"} {
		f.Add([]byte(s), uint16(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, at uint16) {
		p := int(at) % (len(data) + 1)
		l := newLexer(data[p:], int64(p), true, true)
		_, _, err := l.object(0)
		if errors.Is(err, errEndless) && !openHexAtEnd(data) {
			t.Fatalf("the lexer reads %q from %d forever, but openHexAtEnd lets it through", data, p)
		}
		// the library's view of a file: the same bytes, without allowEOF
		_, _, _ = newLexer(data, 0, true, false).object(0)
	})
}
