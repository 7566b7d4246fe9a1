package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDecompressionBomb: a ~114 KB-class file whose 200 pages all draw one
// stream inflating to 56 MB is refused with the budget's one-line reason
// (not "no text layer"), having decoded that stream once.
func TestDecompressionBomb(t *testing.T) {
	t.Parallel()
	bomb := bombPDF(200, 56<<20, "0 0 m 1 1 l S\n")
	if len(bomb) > 200<<10 {
		t.Fatalf("the bomb is %d bytes; it should be a small file", len(bomb))
	}
	_, err := Extract(t.Context(), bytes.NewReader(bomb), int64(len(bomb)), nil)
	if !errors.Is(err, ErrBudget) || errors.Is(err, ErrNoText) {
		t.Fatalf("Extract(bomb) = %v, want ErrBudget", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "more than 32 MB of content from a") || !strings.Contains(msg, "decompression bomb") {
		t.Errorf("message %q", msg)
	}

	// The shared stream is decoded once, and reading stops with the
	// budget instead of going through every page.
	work := newDocWork(int64(len(bomb)))
	layouts, err := layoutPages(t.Context(), testPages(t, bomb), work, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := work.decoded.Load(); d > 57<<20 {
		t.Errorf("decoded %d MB: the shared stream was decoded more than once", d>>20)
	}
	unread := 0
	for _, l := range layouts {
		if l.unread {
			unread++
		}
	}
	if unread < 190 {
		t.Errorf("%d of 200 pages left unread; reading should stop at the budget", unread)
	}
}

// TestBombAfterText: text read before the budget runs out is kept, with a
// warning that says how much was not read.
func TestBombAfterText(t *testing.T) {
	defer func(w int) { workers = w }(workers)
	workers = 1 // pages in order, so that the text page comes first
	bomb := bombPDF(20, 40<<20, "0 0 m 1 1 l S\n")
	// Graft the text page in front of the bomb's pages.
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("")
	fonts := testFonts()
	tc := p.add(stream("", textLines("F1", 72, 700, "The first page has text.")))
	kids := fmt.Sprintf("%d 0 R ", p.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font %s >> /Contents %d 0 R >>", fonts, tc)))
	bombStream := regexp.MustCompile(`(?s)3 0 obj\n(.*?)\nendobj`).FindSubmatch(bomb)[1]
	bc := p.add(string(bombStream))
	for range 19 {
		kids += fmt.Sprintf("%d 0 R ", p.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> /Contents %d 0 R >>", bc)))
	}
	p.objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count 20 >>", kids)
	res := extractBytes(t, p.bytes())
	if res.Text != "The first page has text." {
		t.Errorf("text %q", res.Text)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, "decompression bomb") && strings.Contains(w, "19 of 20 pages were not read")
	}
	if !found {
		t.Errorf("warnings %q do not say what was not read", res.Warnings)
	}
}

// TestSharedContentDecodedOnce: pages that share a content stream decode
// it once and each gets its text.
func TestSharedContentDecodedOnce(t *testing.T) {
	t.Parallel()
	content := textLines("F1", 72, 400, "Every page shows this sentence.")
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("")
	cs := p.add(stream("", content))
	var kids string
	for range 50 {
		kids += fmt.Sprintf("%d 0 R ", p.add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font %s >> /Contents %d 0 R >>", testFonts(), cs)))
	}
	p.objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count 50 >>", kids)
	data := p.bytes()
	work := newDocWork(int64(len(data)))
	if _, err := layoutPages(t.Context(), testPages(t, data), work, nil); err != nil {
		t.Fatal(err)
	}
	if d := work.decoded.Load(); d > int64(len(content))+1 {
		t.Errorf("decoded %d bytes for one %d-byte stream shared by 50 pages", d, len(content))
	}
	res := extractBytes(t, data)
	if res.Pages != 50 || strings.Count(res.Text, "Every page shows this sentence.") != 50 {
		t.Errorf("pages %d, text %q", res.Pages, res.Text)
	}
}

// TestAllTextRepeats: a document whose every line repeats at the edge of
// every page (a form letter printed twice) keeps its text, with a warning,
// instead of failing with "no text layer".
func TestAllTextRepeats(t *testing.T) {
	t.Parallel()
	page := textLines("F1", 72, 760, "Quarterly report of the board")
	data := pagesPDF(testFonts(), page, page, page)
	res, err := Extract(t.Context(), bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatalf("Extract = %v, want the repeated text", err)
	}
	if strings.Count(res.Text, "Quarterly report of the board") != 3 {
		t.Errorf("text %q", res.Text)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "every line repeats") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestUnsureRunningHeads: lines dropped as running heads on repetition
// alone, though not on every page, are named in a warning; a footer on
// every page and numbered heads go without one; a heading that happens
// to open two far-apart pages is kept.
func TestUnsureRunningHeads(t *testing.T) {
	t.Parallel()
	var pages []string
	for i := 1; i <= 12; i++ {
		head := "Part One Overview"
		if i > 6 {
			head = "Part Two Details"
		}
		body := fmt.Sprintf("Body text of page %d says something new.", i)
		if i == 2 || i == 10 {
			head, body = "Arguments", fmt.Sprintf("The arguments of function %d are these.", i)
		}
		pages = append(pages, textLines("F1", 72, 760, head)+textLines("F1", 72, 400, body)+
			textLines("F1", 72, 40, "Confidential draft"))
	}
	res := extractBytes(t, pagesPDF(testFonts(), pages...))
	if strings.Contains(res.Text, "Part One") || strings.Contains(res.Text, "Confidential") {
		t.Errorf("running heads kept: %q", res.Text)
	}
	if strings.Count(res.Text, "Arguments") != 2 {
		t.Errorf("a heading opening two far-apart pages was dropped: %q", res.Text)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "dropped 2 lines repeated at page edges as running heads, though not on every page: “Part One Overview” (5 pages), “Part Two Details” (5 pages)") || strings.Contains(res.Warnings[0], "Confidential") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestRepeatedProseAtPageEdgesIsKept: a sentence-long line that ends two
// nearby pages (a reference cited twice) is text, not a running head; a
// line as long on every page is a footer all the same.
func TestRepeatedProseAtPageEdgesIsKept(t *testing.T) {
	t.Parallel()
	const ref = "Pinheiro, J. C. and Bates, D. M. (2000) Mixed-effects Models in S and S-PLUS. Springer, New York."
	const footer = "Copyright 2026 Example Holdings Ltd. All rights reserved. Not for distribution outside the company."
	var pages []string
	for i := 1; i <= 8; i++ {
		body := fmt.Sprintf("Body text of page %d says something new.", i)
		content := textLines("F1", 72, 760, "Part One Overview") + textLines("F1", 72, 400, body)
		if i == 4 || i == 5 {
			content += textLines("F1", 72, 60, ref)
		}
		pages = append(pages, content+textLines("F1", 72, 40, footer))
	}
	res := extractBytes(t, pagesPDF(testFonts(), pages...))
	if n := strings.Count(res.Text, "Mixed-effects Models"); n != 2 {
		t.Errorf("the reference is in the text %d times, want 2: %q", n, res.Text)
	}
	if strings.Contains(res.Text, "Copyright") || strings.Contains(res.Text, "Part One") {
		t.Errorf("running head or footer kept: %q", res.Text)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "Pinheiro") {
			t.Errorf("warning %q\n%s", w, res.Text)
		}
	}
}

// TestNoTextLayerOnlyWithoutText: "no text layer" is for a file whose
// every page was read and had no text; a file whose pages are damaged
// says so instead.
func TestNoTextLayerOnlyWithoutText(t *testing.T) {
	t.Parallel()
	if _, err := extractFile(t, "scan.pdf"); !errors.Is(err, ErrNoText) {
		t.Errorf("scan: %v", err)
	}
	blank := "0 0 m 100 100 l S\n"
	damaged := "BT /F1 10 Tf 72 700 Td <4g> Tj ET"
	data := pagesPDF(testFonts(), blank, damaged)
	_, err := Extract(t.Context(), bytes.NewReader(data), int64(len(data)), nil)
	if errors.Is(err, ErrNoText) || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "1 of 2 pages are damaged") {
		t.Errorf("a blank and a damaged page: %v", err)
	}
}

// TestLibraryErrorsInUserTerms: a hex string damaged in the file is
// reported at its byte, in words, without the bytes around it.
func TestLibraryErrorsInUserTerms(t *testing.T) {
	t.Parallel()
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R /Lang <4g41> >>")
	p.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	p.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font " + testFonts() + " >> /Contents 4 0 R >>")
	p.add(stream("", textLines("F1", 72, 700, "Some text.")))
	bad := p.bytes()
	_, err := Extract(t.Context(), bytes.NewReader(bad), int64(len(bad)), nil)
	if err == nil {
		t.Fatal("no error")
	}
	m := regexp.MustCompile(`^not a readable PDF: the file is damaged at byte (\d+): a hex string holds a character that is not a hex digit$`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("message %q", err)
	}
	var at int
	fmt.Sscan(m[1], &at)
	if tok := bytes.Index(bad, []byte("<4g41>")); at < tok || at > tok+3 {
		t.Errorf("damage reported at byte %d; the hex string is at %d", at, tok)
	}
}

// TestMutatedPDFMessages: hundreds of damaged variants of real PDFs fail
// or warn in one line of plain words each: no raw PDF bytes, no Go types,
// no library jargon.
func TestMutatedPDFMessages(t *testing.T) {
	t.Parallel()
	var seeds [][]byte
	for _, name := range []string{"two-column.pdf", "browser-print.pdf", "r-intro-p8-9.pdf", "scan.pdf", "owner-password.pdf"} {
		data, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	jargon := regexp.MustCompile(`pdf\.|keyword|objdef|%!|\\x|int64|\[\]|parsing (object|dictionary)|malformed PDF|endstream|0 R\b`)
	check := func(i int, kind, msg string) {
		switch {
		case strings.ContainsAny(msg, "\n\r\t") || len(msg) > 220:
			t.Errorf("variant %d: %s is not one short line (%d bytes): %q", i, kind, len(msg), msg)
		case jargon.MatchString(msg):
			t.Errorf("variant %d: %s speaks the library's jargon: %q", i, kind, msg)
		}
		for _, r := range msg {
			if r < ' ' || r == 0x7f || r == '\ufffd' {
				t.Errorf("variant %d: %s holds %U: %q", i, kind, r, msg)
				break
			}
		}
	}
	for i, data := range mutatedPDFs(seeds, 375) {
		res, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			check(i, "error", err.Error())
			continue
		}
		for _, w := range res.Warnings {
			check(i, "warning", w)
		}
	}
}

// TestSectionNumbersAtPageTopsAreKept: a short contract whose sections
// open its pages, numbered as the pages are ("2. Grants" on page 2, "3.1.
// Notices" on page 3), keeps them, while a running head whose page number
// counts up beside it is still dropped.
func TestSectionNumbersAtPageTopsAreKept(t *testing.T) {
	t.Parallel()
	titles := []string{"", "1. Definitions", "2. License Grants", "3.1. Notices", "4. Termination", "5. Governing Law"}
	var pages []string
	for i := 1; i <= 5; i++ {
		content := textLines("F1", 72, 770, fmt.Sprintf("Master Services Agreement %d", i)) +
			textLines("F1", 72, 720, titles[i]) +
			textLines("F1", 72, 690, fmt.Sprintf("The clauses of part %d bind both parties from the effective date.", i))
		pages = append(pages, content)
	}
	res := extractBytes(t, pagesPDF(testFonts(), pages...))
	for _, title := range titles[1:] {
		if !strings.Contains(res.Text, title) {
			t.Errorf("section heading %q dropped: %q", title, res.Text)
		}
	}
	if strings.Contains(res.Text, "Master Services") {
		t.Errorf("the running head is kept: %q", res.Text)
	}
}
