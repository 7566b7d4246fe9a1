package pdftext

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/ingest/doctest"
)

// Every hostile PDF is read or refused with a clear error, and quickly:
// the loops, recursions and allocations they would cause the PDF library
// are each cut off before it starts them.
func TestHostilePDFs(t *testing.T) {
	t.Parallel()
	for _, h := range doctest.HostilePDFs() {
		var o struct {
			res *Result
			err error
		}
		doctest.Within(t, 20*time.Second, func() {
			o.res, o.err = Extract(t.Context(), bytes.NewReader(h.Data), int64(len(h.Data)), nil)
		})
		switch {
		case h.Text == "" && (!errors.Is(o.err, ErrMalformed) || strings.Contains(o.err.Error(), "\n")):
			t.Errorf("%s (%s): err = %v, want one line saying the file is damaged", h.Name, h.Why, o.err)
		case h.Text != "" && o.err != nil:
			t.Errorf("%s (%s): err %v, want its text", h.Name, h.Why, o.err)
		case h.Text != "" && o.res.Text != h.Text:
			t.Errorf("%s (%s): text %q", h.Name, h.Why, o.res.Text)
		}
	}
}

// Cancelling stops an extraction between pages: the pages in hand are
// finished, none is started after, and the context's error is returned.
func TestCancelBetweenPages(t *testing.T) {
	t.Parallel()
	data := doctest.ManyPagesPDF(2000)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	calls := 0
	_, err := Extract(ctx, bytes.NewReader(data), int64(len(data)), func(done, total int) {
		if calls++; done == 20 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if calls > 20+2*workers {
		t.Errorf("%d pages were reported done after the cancel at 20", calls-20)
	}
}
