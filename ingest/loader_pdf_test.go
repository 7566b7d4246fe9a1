package ingest

import (
	"errors"
	"strings"
	"testing"

	"github.com/citelens/citelens/ingest/doctest"
	"github.com/citelens/citelens/ingest/ocr"
)

// add --ocr of a 600-byte PDF of two text-less 100-inch pages used to
// render them at 30,000 pixels square until memory ran out: the pages are
// refused before rendering, and the error says why.
func TestOCRHugePages(t *testing.T) {
	t.Parallel()
	requireOCR(t)
	_, err := Load(t.Context(), "huge.pdf", doctest.HugePagesPDF(2, 100), LoadOptions{OCR: &ocr.Options{}})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "page 1 is 100 × 100 inches, too large to read by OCR") {
		t.Errorf("err = %v", err)
	}
}
