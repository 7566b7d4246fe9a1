package main

import (
	"context"
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/ingest/doctest"
	"github.com/citelens/citelens/ingest/ocr"
)

// formatCase is one document of a format citelens reads, with a search
// and a question its text answers.
type formatCase struct {
	file     string
	content  []byte
	addFlags []string
	kind     string
	pages    int
	ocrPages int
	search   []string
	question string
	answer   string // a phrase the first statement of the answer holds
}

func formatCases(t *testing.T) []formatCase {
	html, err := os.ReadFile("../../testdata/formats/article.html")
	if err != nil {
		t.Fatal(err)
	}
	dx := doctest.NewDOCX("Harbour survey")
	dx.Title("Survey of the Harbour Wall")
	dx.Heading(1, "Findings")
	dx.Para("The wall was built in 1874 and rebuilt in 1952 after a storm breached the north arm.")
	dx.WithFootnote("Its foundations rest on timber piles.", "Divers inspected the piles in 2019.")
	dx.Table([]string{"Section", "Settlement (mm)"}, []string{"North", "12"}, []string{"South", "31"})
	book := doctest.EPUB("The Lighthouse Keepers",
		doctest.Chapter{Title: "The Rock", Body: "<h1>The Rock</h1><p>The lighthouse stood on a granite rock eleven miles out to sea.</p>"},
		doctest.Chapter{Title: "Storms", Body: "<p>In the winter of 1896 the keepers were cut off by storms for nine weeks.</p>"},
	)
	return []formatCase{
		{file: "story.html", content: html, kind: "html", pages: 1,
			search: []string{"toll", "cars"}, question: "How much is the toll for cars?", answer: "toll of €2"},
		{file: "survey.docx", content: dx.Bytes(), kind: "docx", pages: 1,
			search: []string{"rebuilt"}, question: "When was the wall rebuilt?", answer: "rebuilt in 1952"},
		{file: "keepers.epub", content: book, kind: "epub", pages: 2,
			search: []string{"winter", "storms"}, question: "How long were the keepers cut off by storms?", answer: "nine weeks"},
	}
}

// scanCase is a one-page scan of a typed paragraph, read with --ocr.
func scanCase(t *testing.T) formatCase {
	typed := doctest.PDF(doctest.PDFPage{Lines: []string{
		"The inspection found that the harbour wall settled by",
		"thirty-one millimetres along its southern section.",
	}})
	img, err := doctest.Render(t.Context(), typed, 1, 300)
	if err != nil {
		t.Fatal(err)
	}
	return formatCase{file: "scan.pdf", content: doctest.PDF(doctest.PDFPage{Image: img}), addFlags: []string{"--ocr"}, kind: "pdf", pages: 1, ocrPages: 1,
		search: []string{"settled", "southern"}, question: "How much did the harbour wall settle?", answer: "settled by thirty-one millimetres"}
}

// TestEveryFormatAddedSearchedAskedExported adds a document of each format,
// searches it, asks it (extractive) and exports the answer, checking that
// every citation quotes the stored text exactly at its byte range.
func TestEveryFormatAddedSearchedAskedExported(t *testing.T) {
	t.Parallel()
	cases := formatCases(t)
	if err := ocr.Check(context.Background(), ocr.Options{}); err == nil {
		cases = append(cases, scanCase(t))
	} else if os.Getenv("CI") != "" {
		t.Fatalf("CI must have the OCR tools: %v", err)
	} else {
		t.Logf("the scanned page is skipped: %v", err)
	}
	c := newCLI(t)
	dir := t.TempDir()
	for _, fc := range cases {
		t.Run(fc.file, func(t *testing.T) {
			path := filepath.Join(dir, fc.file)
			if err := os.WriteFile(path, fc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			var added []addedDoc
			if err := json.Unmarshal([]byte(c.ok(append(append([]string{"add", "--json"}, fc.addFlags...), path)...)), &added); err != nil {
				t.Fatal(err)
			}
			doc := added[0]
			if doc.Kind != fc.kind || doc.Pages != fc.pages || len(doc.OCRPages) != fc.ocrPages || doc.Sentences == 0 {
				t.Fatalf("added %+v", doc)
			}
			id := string(doc.ID)
			text := c.ok("show", "--text", id)

			var hits []searchHit
			if err := json.Unmarshal([]byte(c.ok(append([]string{"search", "--json", "--doc", id, "--k", "3"}, fc.search...)...)), &hits); err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 {
				t.Fatalf("search %v found nothing in\n%s", fc.search, text)
			}
			for _, h := range hits {
				if h.End > len(text) || text[h.Start:h.End] != h.Text {
					t.Errorf("hit %+v does not quote the stored text", h)
				}
			}

			var rec askRecord
			if err := json.Unmarshal([]byte(c.ok("ask", "--json", "--strategy", "extractive", "--doc", id, fc.question)), &rec); err != nil {
				t.Fatal(err)
			}
			if len(rec.Statements) == 0 || !strings.Contains(rec.Statements[0].Text, fc.answer) {
				t.Fatalf("%q answered %+v\nfrom\n%s", fc.question, rec.Statements, text)
			}
			for _, s := range rec.Statements {
				for _, cit := range s.Citations {
					if cit.Doc != id || cit.End > len(text) || text[cit.Start:cit.End] != cit.Text || cit.Page < 1 || cit.Page > fc.pages {
						t.Errorf("citation %+v does not resolve to the stored text", cit)
					}
				}
			}
			md := c.ok("export", rec.AnswerID)
			quote := rec.Statements[0].Citations[0].Text
			if !strings.Contains(md, quote) || !strings.Contains(md, fc.file) {
				t.Errorf("the export lacks the quote %q:\n%s", quote, md)
			}
			if fc.ocrPages > 0 {
				if !strings.Contains(md, "p. 1 (OCR)") {
					t.Errorf("the export does not say the page was read by OCR:\n%s", md)
				}
				if show := c.ok("show", id); !strings.Contains(show, "ocr pages  1") {
					t.Errorf("show does not name the OCR'd pages:\n%s", show)
				}
			}
		})
	}
}

func TestScanWithoutOCRSaysHow(t *testing.T) {
	img := doctest.PDF(doctest.PDFPage{Image: blankPage()})
	path := filepath.Join(t.TempDir(), "scan.pdf")
	if err := os.WriteFile(path, img, 0o600); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	_, errs, code := c.run("add", path)
	if code != 1 || !strings.Contains(errs, "no text layer") || !strings.Contains(errs, "citelens add --ocr") {
		t.Errorf("status %d: %s", code, errs)
	}
	// Without the tools, --ocr names the packages to install.
	t.Setenv("PATH", t.TempDir())
	_, errs, code = c.run("add", "--ocr", path)
	if code != 1 || !strings.Contains(errs, "apt-get install") || !strings.Contains(errs, "tesseract-ocr") {
		t.Errorf("status %d: %s", code, errs)
	}
}

func TestAddHelpListsFileTypes(t *testing.T) {
	t.Parallel()
	out := newCLI(t).ok("add", "--help")
	for _, want := range []string{"--ocr", "--ocr-lang", ".pdf", ".txt", ".md", ".html", ".docx", ".epub", "Word documents", "e-books"} {
		if !strings.Contains(out, want) {
			t.Errorf("add --help lacks %q:\n%s", want, out)
		}
	}
}

// blankPage is a white page image, as a scanner gives for an empty sheet.
func blankPage() *image.Gray {
	g := image.NewGray(image.Rect(0, 0, 850, 1100))
	for i := range g.Pix {
		g.Pix[i] = 0xff
	}
	return g
}
