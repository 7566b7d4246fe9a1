package pdffile

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/ingest/doctest"
)

// Every hostile PDF is read or refused, and quickly: Open (or Rebuild,
// when Open finds the file damaged) gives the page's content where it has
// one, and an ErrMalformed where it does not.
func TestHostilePDFs(t *testing.T) {
	t.Parallel()
	for _, h := range doctest.HostilePDFs() {
		t.Run(h.Name, func(t *testing.T) {
			var r struct {
				content  string
				warnings []string
				err      error
			}
			doctest.Within(t, 20*time.Second, func() { r.content, r.warnings, r.err = readAll(t.Context(), h.Data) })
			switch {
			case h.Text == "" && !errors.Is(r.err, ErrMalformed):
				t.Errorf("%s (%s): err = %v, want ErrMalformed", h.Name, h.Why, r.err)
			case h.Text != "" && (r.err != nil || !strings.Contains(r.content, h.Text)):
				t.Errorf("%s (%s): content %q, err %v", h.Name, h.Why, r.content, r.err)
			}
			if strings.HasPrefix(h.Name, "prev-") && (len(r.warnings) != 1 || !strings.Contains(r.warnings[0], "point back at one another")) {
				t.Errorf("%s: warnings %q, want the loop cut, not the table rebuilt", h.Name, r.warnings)
			}
		})
	}
}

// readAll opens data as the extractor does (Open, else Rebuild when the
// file is damaged), reads the document information dictionary and
// returns the content of its pages. Like the extractor, it recovers the
// library's panics (at damage it finds while resolving objects).
func readAll(ctx context.Context, data []byte) (content string, warnings []string, err error) {
	f, err := Open(ctx, bytes.NewReader(data), int64(len(data)))
	var d *Damage
	if errors.As(err, &d) {
		if f2, err2 := Rebuild(ctx, bytes.NewReader(data), int64(len(data))); err2 == nil {
			f, err = f2, nil
		}
	}
	if err != nil {
		return "", nil, err
	}
	defer func() {
		if x := recover(); x != nil {
			content, warnings, err = "", nil, f.Fault(x)
		}
	}()
	if err := info(f); err != nil {
		return "", nil, err
	}
	pages, err := f.Pages()
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	for _, p := range pages {
		content, err := ReadStream(p.V.Key("Contents"), 1<<20)
		if err != nil {
			return "", nil, f.Fault(err)
		}
		b.Write(content)
	}
	return b.String(), f.Warnings, nil
}

// info reads the document's title, as the extractor does.
func info(f *File) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = f.Fault(x)
		}
	}()
	_ = f.Trailer().Key("Info").Key("Title").Text()
	return nil
}

// Once the context is done, a read the library makes panics with the
// context's error, and what reads through the File says so.
func TestCancelledReads(t *testing.T) {
	t.Parallel()
	data := doctest.ManyPagesPDF(20)
	ctx, cancel := context.WithCancel(t.Context())
	f, err := Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := f.Pages()
	if err != nil || len(pages) != 20 {
		t.Fatalf("pages %d, %v", len(pages), err)
	}
	contents := pages[3].V.Key("Contents")
	cancel()
	if _, err := ReadStream(contents, 1<<20); !errors.Is(err, context.Canceled) {
		t.Errorf("reading a stream after cancel: %v", err)
	}
	if _, err := f.Pages(); !errors.Is(err, context.Canceled) {
		t.Errorf("listing pages after cancel: %v", err)
	}
	func() {
		defer func() {
			if err := f.Fault(recover()); !errors.Is(err, context.Canceled) {
				t.Errorf("a library panic after cancel reads as %v", err)
			}
		}()
		_ = pages[5].V.Key("Contents").Key("Length") // reads from the file
	}()
	if _, err := Open(ctx, bytes.NewReader(data), int64(len(data))); !errors.Is(err, context.Canceled) {
		t.Errorf("opening with a cancelled context: %v", err)
	}
}
