package pdftext

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/citelens/citelens/docstore/structure"
	"github.com/citelens/citelens/ingest/doctest"
)

const testdata = "../../testdata/pdf"

func readTestPDF(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func extractFile(t testing.TB, name string) (*Result, error) {
	data := readTestPDF(t, name)
	return Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
}

// checkClean asserts the text contract the segmenter relies on.
func checkClean(t *testing.T, res *Result) {
	t.Helper()
	if !utf8.ValidString(res.Text) {
		t.Error("text is not valid UTF-8")
	}
	for _, r := range res.Text {
		if r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 || r >= 0xFB00 && r <= 0xFB06 {
			t.Errorf("text holds %U", r)
			break
		}
	}
	if strings.Contains(res.Text, "\n\n\n") || strings.Contains(res.Text, "  \n") {
		t.Error("text holds runs of blank lines or trailing spaces")
	}
	if len(res.PageStarts) != res.Pages {
		t.Errorf("%d page starts for %d pages", len(res.PageStarts), res.Pages)
	}
	for i := 1; i < len(res.PageStarts); i++ {
		if res.PageStarts[i] < res.PageStarts[i-1] || int(res.PageStarts[i]) > len(res.Text) {
			t.Errorf("page starts not ascending within the text: %v", res.PageStarts)
		}
	}
}

func TestTwoColumnPDF(t *testing.T) {
	t.Parallel()
	res, err := extractFile(t, "two-column.pdf")
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, res)
	for _, want := range []string{
		"Reading Order in Two-Column Documents\n\nA. N. Author\n\nA text extractor",
		"the first line of the left column is followed by the first line of the right column, and every sentence is cut in two.",
		"must come out as separate letters so that searching for them works.",
		"a compound such as well-known keeps its hyphen",
		"in words like first, file, find, flow and affluent,",
		// a sentence running from the foot of the left column to the top of the right
		"unless something between them spans both. This simple rule orders columns, sidebars and headings on most pages.",
		"and the extractor says so plainly",
		"it joins words into lines.\n\nThe gutter is",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if strings.Contains(res.Text, "- 1 -") || strings.HasSuffix(res.Text, "1") {
		t.Error("the page number footer was kept")
	}
	if i, j := strings.Index(res.Text, "Running heads"), strings.Index(res.Text, "Headings stand"); i < 0 || j < 0 || i > j {
		t.Error("the right column is not read after the left")
	}
}

func TestRIntroPages(t *testing.T) {
	t.Parallel()
	res, err := extractFile(t, "r-intro-p8-9.pdf")
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, res)
	if res.Pages != 2 {
		t.Fatalf("pages = %d", res.Pages)
	}
	for _, want := range []string{
		"1.1 The R environment\n\nR is an integrated suite of software facilities",
		"• an effective data handling and storage facility,",
		// the sentence across the page break is one sentence
		"A few of these are built into the base R environment, but many are supplied as packages.",
		"$ mkdir work\n$ cd work",
		"S-Plus",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if !strings.HasPrefix(res.Text[res.PageStarts[1]:], "into the base R environment") {
		t.Errorf("page 2 starts at %q", res.Text[res.PageStarts[1]:min(len(res.Text), int(res.PageStarts[1])+40)])
	}
	for _, header := range []string{"Chapter 1: Introduction and preliminaries", "An Introduction to R"} {
		if strings.Contains(res.Text, header) {
			t.Errorf("running header %q kept", header)
		}
	}
}

func TestBrowserPrintPDF(t *testing.T) {
	t.Parallel()
	res, err := extractFile(t, "browser-print.pdf")
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, res)
	for _, want := range []string{
		"Printing from a browser\n\nBrowsers print through Skia,",
		"The first paragraph spans the full width of the page, so that the reader meets ordinary text before the columns begin.",
		// across the column break of ragged-right text
		"the shaping engine may substitute ligature glyphs, and then only the ToUnicode map knows their letters.",
		"Accented letters — é, ü, ñ, ç — and typographic quotes “like these” must survive",
		// inline code on a line of its own stays in its sentence
		"Code in a monospaced font, such as extract(ctx, reader, size), keeps its punctuation.",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
}

func TestEncryptedPDF(t *testing.T) {
	t.Parallel()
	_, err := extractFile(t, "encrypted.pdf")
	if !errors.Is(err, ErrEncrypted) {
		t.Errorf("err = %v, want ErrEncrypted", err)
	}
	res, err := extractFile(t, "owner-password.pdf")
	if err != nil {
		t.Fatalf("owner-password-only PDF: %v", err)
	}
	if !strings.Contains(res.Text, "A text extractor that reads a two-column page") {
		t.Errorf("owner-password-only PDF text: %.80q", res.Text)
	}
}

// AES-256 files, which the PDF library cannot decrypt, are decrypted here
// when they need no user password.
func TestAES256(t *testing.T) {
	t.Parallel()
	plain, err := extractFile(t, "two-column.pdf")
	if err != nil {
		t.Fatal(err)
	}
	res, err := extractFile(t, "aes256-owner-password.pdf")
	if err != nil {
		t.Fatalf("AES-256 with an owner password only: %v", err)
	}
	if res.Text != plain.Text {
		t.Errorf("decrypted text differs:\n%.200q", res.Text)
	}
	if _, err := extractFile(t, "aes256-user-password.pdf"); !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), "password") {
		t.Errorf("AES-256 with a user password: err = %v", err)
	}
}

func TestScanHasNoText(t *testing.T) {
	t.Parallel()
	_, err := extractFile(t, "scan.pdf")
	if !errors.Is(err, ErrNoText) {
		t.Errorf("err = %v, want ErrNoText", err)
	}
}

func TestMalformed(t *testing.T) {
	t.Parallel()
	for name, data := range map[string][]byte{
		"empty":       nil,
		"not a pdf":   []byte("hello, this is plain text\n%%EOF\n"),
		"header only": []byte("%PDF-1.4\n%%EOF\n"),
		"no pages":    []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"),
	} {
		_, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}

// Files with a damaged cross-reference table are read after rebuilding it,
// also when their objects are packed in object streams.
func TestRepairXref(t *testing.T) {
	t.Parallel()
	two := readTestPDF(t, "two-column.pdf")
	rintro := readTestPDF(t, "r-intro-p8-9.pdf")
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"no startxref":            {bytes.Replace(two, []byte("startxref"), []byte("startxrex"), 1), "A text extractor that reads"},
		"offsets shifted":         {append([]byte("%PDF-1.4\n%junk line to shift every offset\n"), two[9:]...), "A text extractor that reads"},
		"junk before the header":  {append([]byte("From: someone\r\n\r\n"), two...), "A text extractor that reads"},
		"object streams, no xref": {bytes.Replace(rintro, []byte("startxref"), []byte("startxrex"), 1), "R is an integrated suite"},
	} {
		res, err := Extract(context.Background(), bytes.NewReader(c.data), int64(len(c.data)), nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.Contains(res.Text, c.want) {
			t.Errorf("%s: text %.80q", name, res.Text)
		}
		if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "rebuilt") {
			t.Errorf("%s: warnings %q", name, res.Warnings)
		}
	}
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	data := readTestPDF(t, "r-intro-p8-9.pdf")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Extract(ctx, bytes.NewReader(data), int64(len(data)), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestProgress(t *testing.T) {
	t.Parallel()
	data := readTestPDF(t, "r-intro-p8-9.pdf")
	var calls []int
	_, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), func(done, total int) {
		if total != 2 {
			t.Errorf("total = %d", total)
		}
		calls = append(calls, done)
	})
	if err != nil || len(calls) != 2 || calls[1] != 2 {
		t.Errorf("progress calls %v, err %v", calls, err)
	}
}

// FuzzExtract feeds real PDFs and damaged variants of them: Extract must
// return text or an error, never panic or hang. The fuzzer mutates a
// short list of edits (doctest.Damaged) applied to one of the files, not
// the files themselves: the damage stays that of a real file, and what
// the fuzzer keeps is minimized in seconds.
func FuzzExtract(f *testing.F) {
	bases := fuzzBases(f)
	for i, b := range bases {
		f.Add(uint8(i), []byte(nil))
		f.Add(uint8(i), []byte{3, 0xaa, 0xaa, 0}) // cut short at two thirds
		f.Add(uint8(i), doctest.Flips(b, 200, 997))
	}
	f.Fuzz(func(t *testing.T, base uint8, edits []byte) {
		checkExtract(t, doctest.Damaged(bases[int(base)%len(bases)], edits))
	})
}

// fuzzBases are the files FuzzExtract damages: small real PDFs (the
// others are covered by their own tests) and generated ones.
func fuzzBases(f *testing.F) [][]byte {
	var bases [][]byte
	for _, name := range []string{"two-column.pdf", "scan.pdf", "encrypted.pdf", "owner-password.pdf", "browser-print.pdf", "aes256-owner-password.pdf"} {
		data, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, data)
	}
	return append(bases, pagesPDF(testFonts(), textLines("F1", 72, 700, "A small page.")), outlinePDF(), doctest.ObjStmPDF("Packed objects are read.", ""))
}

// checkExtract fails unless Extract returns, within the test's bound,
// text that is valid UTF-8 with its structure in place, or one of its
// errors.
func checkExtract(t *testing.T, data []byte) {
	t.Helper()
	var res *Result
	var err error
	doctest.Within(t, 20*time.Second, func() {
		res, err = Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
	})
	if err != nil {
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrNoText) && !errors.Is(err, ErrBudget) {
			t.Fatalf("unexpected error %v", err)
		}
		return
	}
	if !utf8.ValidString(res.Text) {
		t.Fatal("invalid UTF-8")
	}
	checkStructure(t, res)
}

// TestFuzzExtractFinds replays what FuzzExtract found when it fed whole
// files (each made the library's lexer loop), kept in testdata/finds in
// the fuzzer's corpus format.
func TestFuzzExtractFinds(t *testing.T) {
	t.Parallel()
	doctest.ReplayFinds(t, "testdata/finds", checkExtract)
}

// checkStructure fails unless the headings and table rows are spans of
// the text, the headings in order and apart, each within one block.
func checkStructure(t *testing.T, res *Result) {
	t.Helper()
	end := int32(-1)
	for _, h := range res.Headings {
		if !h.Span.Valid(len(res.Text)) || h.Span.Start < end || h.Level < 1 {
			t.Fatalf("heading %+v after %d in a text of %d bytes", h, end, len(res.Text))
		}
		if s := res.Text[h.Span.Start:h.Span.End]; strings.TrimSpace(s) != s || strings.Contains(s, "\n\n") {
			t.Fatalf("heading %q", s)
		}
		end = h.Span.End
	}
	for _, tb := range res.Tables {
		for _, r := range append(append([]structure.Span{}, tb.Header...), tb.Rows...) {
			if !r.Valid(len(res.Text)) || strings.Contains(res.Text[r.Start:r.End], "\n") {
				t.Fatalf("table row %+v", r)
			}
		}
	}
}

// A page tree whose node lists itself among its kids, and a cross-reference
// size that would make the library allocate gigabytes, are both refused or
// read without looping.
func TestHostileStructure(t *testing.T) {
	t.Parallel()
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("<< /Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 3 >>")
	p.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font " + testFonts() + " >> /Contents 4 0 R >>")
	p.add(stream("", "BT /F1 10 Tf 72 700 Td (Only page.) Tj ET"))
	res := extractBytes(t, p.bytes())
	if res.Pages != 1 || res.Text != "Only page." {
		t.Errorf("pages %d text %q", res.Pages, res.Text)
	}
	// the absurd size is never handed to the library; the table is rebuilt
	huge := bytes.Replace(p.bytes(), []byte("trailer\n<</Size 5"), []byte("trailer\n<</Size 5000000000"), 1)
	if res, err := Extract(context.Background(), bytes.NewReader(huge), int64(len(huge)), nil); err != nil || res.Text != "Only page." {
		t.Errorf("huge xref: err = %v", err)
	}
	// A file cut in half keeps the text of the objects before the cut, or
	// fails cleanly.
	good := readTestPDF(t, "two-column.pdf")
	half := good[:len(good)/2]
	if _, err := Extract(context.Background(), bytes.NewReader(half), int64(len(half)), nil); err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNoText) {
		t.Errorf("truncated: err = %v", err)
	}
}

// An object stream ending inside a hex string would hang the library's
// lexer; such a file is refused before the library reads it.
func TestObjStmOpenHexString(t *testing.T) {
	t.Parallel()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("3 0 << /Type /Pages /Kids [] /Count 0 /X <4142"))
	zw.Close()
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 3 0 R >>")
	p.add(fmt.Sprintf("<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", z.Len(), z.String()))
	data := p.bytes()
	if _, err := Extract(context.Background(), bytes.NewReader(data), int64(len(data)), nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("err = %v", err)
	}
}

// trimQuotes trims what strings.Trim trimmed with its set of quotes and
// punctuation.
func TestTrimQuotes(t *testing.T) {
	t.Parallel()
	const set = ".,;:!?()[]{}\"'“”‘’"
	for _, s := range []string{"", ".", "word", "(word),", "“quoted”", "‘a’", "''", "x.y", "...(", "é.", "\xff.", ".\xff", "“\xffé”", "[[1]]", "—dash—"} {
		if got, want := trimQuotes(s), strings.Trim(s, set); got != want {
			t.Errorf("trimQuotes(%q) = %q, want %q", s, got, want)
		}
	}
}
