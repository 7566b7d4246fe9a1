package pdffile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/ingest/doctest"
)

// A cross-reference size that would make the library allocate gigabytes
// is refused before the library sees it.
func TestXrefSizeBound(t *testing.T) {
	t.Parallel()
	p := doctest.NewRawPDF("1.4")
	p.Object(1, "<< /Type /Catalog /Pages 2 0 R >>")
	p.Object(2, "<< /Type /Pages /Kids [] /Count 0 >>")
	good := p.End(p.Table("/Root 1 0 R"))
	huge := bytes.Replace(good, []byte("/Size 3 "), []byte("/Size 5000000000 "), 1)
	if bytes.Equal(huge, good) {
		t.Fatal("the trailer was not changed")
	}
	// a table larger than the first window read
	many := doctest.ManyPagesPDF(2000)
	for name, data := range map[string][]byte{"good": good, "huge": huge, "many": many} {
		c, err := readXref(t.Context(), bytesSource(data))
		var d *Damage
		switch {
		case name != "huge" && (err != nil || c == nil || !c.complete):
			t.Errorf("%s: %v, %+v", name, err, c)
		case name == "huge" && !errors.As(err, &d):
			t.Errorf("%s: err = %v, want a Damage", name, err)
		}
	}
}

// The walk of the cross-reference chain reads every real file's chain to
// its end, as the library does: a file it could not read would be taken
// for a damaged one and rebuilt.
func TestXrefChainOfRealFiles(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../../testdata/pdf/*.pdf")
	manuals, _ := filepath.Glob("/usr/share/R/doc/manual/*.pdf")
	if len(files) == 0 {
		t.Fatal("no test PDFs")
	}
	for _, name := range append(files, manuals...) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := readXref(t.Context(), newSource(bytes.NewReader(data), int64(len(data))))
		if err != nil || c == nil || !c.complete {
			t.Errorf("%s: chain %+v, %v", name, c, err)
			continue
		}
		if packs := bytes.Contains(data, []byte("/ObjStm")); packs != (len(c.packed) > 0) {
			t.Errorf("%s: %d packed objects; the file has object streams: %v", name, len(c.packed), packs)
		}
		if strings.Contains(name, "r-intro") {
			if f, err := Open(t.Context(), bytes.NewReader(data), int64(len(data))); err != nil || !f.flat {
				t.Errorf("%s: %v, flattened %v", name, err, f != nil && f.flat)
			}
		}
	}
}

// A loop in the chain is cut at the /Prev that closes it.
func TestXrefLoopCut(t *testing.T) {
	t.Parallel()
	for _, h := range doctest.HostilePDFs() {
		if !strings.HasPrefix(h.Name, "prev-") {
			continue
		}
		c, err := readXref(t.Context(), bytesSource(h.Data))
		if err != nil || c == nil || c.loop[1] <= c.loop[0] {
			t.Errorf("%s: %v, %+v", h.Name, err, c)
			continue
		}
		if cut := string(h.Data[c.loop[0]:c.loop[1]]); !strings.HasPrefix(cut, "/Prev ") {
			t.Errorf("%s: cut %q, want the /Prev entry", h.Name, cut)
		}
	}
}
