package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/citations/pagerender/pagerendertest"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/viewer"
)

// pdfCLI is a CLI whose library holds the R-intro sample, with the page
// renderer's compiled code shared with the other test binaries (the user's
// own cache is never touched).
func pdfCLI(t *testing.T) (*cli, string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", pagerendertest.CacheHome())
	c := newCLI(t)
	data, err := os.ReadFile("../../testdata/pdf/r-intro-p8-9.pdf")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r-intro.pdf")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("add", path)
	return c, path
}

func decodePNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if rgba, ok := img.(*image.RGBA); ok {
		return rgba
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

func TestShowImage(t *testing.T) {
	c, _ := pdfCLI(t)
	out := filepath.Join(t.TempDir(), "page.png")
	_, errs, code := c.run("show", "--page", "1", "--image", out, "--sentences", "2-3", "r-intro")
	if code != 0 {
		t.Fatalf("show --image: %d %s", code, errs)
	}
	img := decodePNG(t, out)
	if b := img.Bounds(); b.Dx() != 1275 || b.Dy() != 1650 {
		t.Errorf("a letter page at 150 dpi is %v", b)
	}
	if pagerendertest.CountMarked(img, img.Bounds()) < 1000 {
		t.Error("the sentences are not highlighted")
	}
	plain := filepath.Join(t.TempDir(), "plain.png")
	c.ok("show", "--page", "2", "--image", plain, "--dpi", "50", "r-intro")
	if img := decodePNG(t, plain); pagerendertest.CountMarked(img, img.Bounds()) != 0 || img.Bounds().Dx() != 425 {
		t.Errorf("a page without --sentences: %v, %d marked pixels", img.Bounds(), pagerendertest.CountMarked(img, img.Bounds()))
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "--page", "2", "--image", out, "--sentences", "2-3", "r-intro"}, "give --page 1"},
		{[]string{"show", "--image", out, "r-intro"}, "--image needs --page N"},
		{[]string{"show", "--page", "1", "--image", out, "--sentences", "3-2", "r-intro"}, "comes after"},
		{[]string{"show", "--page", "1", "--image", out, "--sentences", "2-99999", "r-intro"}, "has sentences 0 to"},
		{[]string{"show", "--page", "9", "--image", out, "r-intro"}, "pages 1 to 2"},
	} {
		if _, errs, code := c.run(bad.args...); code == 0 || !strings.Contains(errs, bad.want) {
			t.Errorf("%v: status %d, %q; want an error saying %q", bad.args, code, errs, bad.want)
		}
	}
	c.ok("add", sample)
	if _, errs, code := c.run("show", "--page", "1", "--image", out, "declaration"); code == 0 || !strings.Contains(errs, "not a PDF") {
		t.Errorf("a text document: %d %q", code, errs)
	}
}

var dataPNG = regexp.MustCompile(`<img class="page" src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="r-intro.pdf, page \d+, the cited lines highlighted"`)

func TestExportPictures(t *testing.T) {
	c, _ := pdfCLI(t)
	var rec askRecord
	if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--doc", "r-intro", "what does the R environment hold")), &rec); err != nil {
		t.Fatal(err)
	}
	cites := 0
	for _, s := range rec.Statements {
		cites += len(s.Citations)
	}
	if cites == 0 {
		t.Fatal("the answer cites nothing")
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "a.html")
	c.ok("export", rec.AnswerID, "--format", "html", "-o", html)
	data, _ := os.ReadFile(html)
	if n := len(dataPNG.FindAll(data, -1)); n < cites {
		t.Errorf("%d pictures for %d citations in the HTML export: %s", n, cites, regexp.MustCompile(`alt="[^"]*"`).FindAll(data, 3))
	}
	c.ok("export", rec.AnswerID, "--format", "html", "--no-images", "-o", html)
	if data, _ := os.ReadFile(html); strings.Contains(string(data), "<img") {
		t.Error("--no-images left pictures in")
	}

	folder := filepath.Join(dir, "report") + "/"
	c.ok("export", rec.AnswerID, "-o", folder)
	md, err := os.ReadFile(filepath.Join(folder, "answer.md"))
	if err != nil {
		t.Error(err)
	}
	pngs, _ := filepath.Glob(filepath.Join(folder, "citation-*.png"))
	if len(pngs) < cites {
		t.Errorf("%d PNGs for %d citations: %v", len(pngs), cites, pngs)
	}
	// The Markdown shows each picture under its citation's quote.
	for _, p := range pngs {
		if link := "](<" + filepath.Base(p) + ">)"; !strings.Contains(string(md), link) {
			t.Errorf("answer.md does not link %s:\n%s", filepath.Base(p), md)
		}
	}
	for _, p := range pngs {
		if pagerendertest.CountMarked(decodePNG(t, p), image.Rect(0, 0, 1<<20, 1<<20)) == 0 {
			t.Errorf("%s has no highlight", p)
		}
	}
}

// TestSourceLinks: ask's sources link to the file at the cited page (for
// a PDF), from the library's record of the file, with anything in the
// path that could end the link escaped.
func TestSourceLinks(t *testing.T) {
	c, path := pdfCLI(t)
	l, err := docstore.Open(c.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	docs, err := l.List()
	if err != nil || len(docs) != 1 {
		t.Fatalf("library: %v %v", docs, err)
	}
	var out bytes.Buffer
	p := &statementPrinter{w: &out, link: func(c citations.Span) string { return sourceLink(l, c) }}
	ans := &engine.Answer{Statements: []citations.Statement{{Text: "R is an environment.", Citations: []citations.Span{{Doc: docs[0].ID, DocName: "r-intro.pdf", Page: 2, First: 3, Last: 3, Text: "x"}}}}}
	p.printStatement(&ans.Statements[0])
	p.finish(ans)
	want := "\x1b]8;;file://" + path + "#page=2\x07r-intro.pdf, p. 2\x1b]8;;\x07, sentence 3"
	if !strings.Contains(out.String(), want) {
		t.Errorf("sources:\n%q\nwant %q", out.String(), want)
	}
	if got := viewer.PageURL("/tmp/evil\x1b]8;;\x07x.pdf", 1); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("a path's escape characters reach the link: %q", got)
	}
}
