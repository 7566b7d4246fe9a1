package pdftext

import (
	"strings"
	"testing"
)

func TestGlyphNameText(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"A": "A", "fi": "\ufb01", "ffl": "\ufb04", "f_f_i": "ffi", "uni00E9": "é", "uni00410042": "AB",
		"u1F600": "😀", "a.sc": "a", "one.oldstyle": "1", "quoteright": "’", ".notdef": "", "g123": "",
		"Omega": "\u2126", "alpha": "α", "hyphen": "-",
	} {
		if got := glyphNameText(name); got != want {
			t.Errorf("glyphNameText(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCleanRune(t *testing.T) {
	t.Parallel()
	for r, want := range map[rune]string{
		'a': "a", 0xFB01: "fi", 0xFB00: "ff", 0xFB03: "ffi", 0xFB02: "fl", 0xA0: " ", '\t': " ",
		0x07: "", 0xFFFD: "", 0xAD: "-", 0xE000: "", 0x200B: "",
	} {
		if got := cleanRune(r); got != want {
			t.Errorf("cleanRune(%U) = %q, want %q", r, got, want)
		}
	}
}

// A standard font with no /Widths: metrics come from the built-in tables,
// and the gap left by Td between two strings is a word break.
func TestStandardFontEncodings(t *testing.T) {
	t.Parallel()
	fonts := "<< /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> /F2 << /Type /Font /Subtype /Type1 /BaseFont /Times-Bold /Encoding /MacRomanEncoding >> >>"
	// "Caf\351" is Café in WinAnsi; "na\357ve" naïve; \226 is an en dash.
	content := "BT /F1 12 Tf 72 700 Td (Caf\\351) Tj ( na\\357ve) Tj ET\n" +
		"BT /F1 12 Tf 72 680 Td (one) Tj 30 0 Td (two) Tj ET\n" +
		"BT /F1 12 Tf 72 660 Td (pages 3\\2264) Tj ET\n" +
		"BT /F2 12 Tf 72 640 Td (Mac \\216t\\216 \\247) Tj ET"
	res := extractBytes(t, pagesPDF(fonts, content))
	for _, want := range []string{"Café naïve", "one two", "3–4", "Mac été ß"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("text %q lacks %q", res.Text, want)
		}
	}
	if res.Title != "A Test" || res.Pages != 1 {
		t.Errorf("title %q pages %d", res.Title, res.Pages)
	}
}

// /Differences glyph names go through the Adobe Glyph List, ligature glyphs
// become letters, and without /Widths the widths come from the AFM metrics
// of Times-Roman.
func TestDifferences(t *testing.T) {
	t.Parallel()
	fonts := "<< /F1 << /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /BaseEncoding /StandardEncoding /Differences [1 /fi /fl /f_f /uni00E9 /a.sc] >> >> >>"
	content := "BT /F1 10 Tf 72 700 Td (\\001le \\002ow o\\003er caf\\004 \\005) Tj ET"
	res := extractBytes(t, pagesPDF(fonts, content))
	if want := "file flow offer café a"; res.Text != want {
		t.Errorf("text %q, want %q", res.Text, want)
	}
}

// A /ToUnicode CMap overrides the encoding; bfrange with a destination array
// and with an incrementing destination both work.
func TestToUnicodeSimpleFont(t *testing.T) {
	t.Parallel()
	cmap := `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /Test def 1 begincodespacerange <00> <FF> endcodespacerange
2 beginbfchar <01> <00660069> <02> <0041> endbfchar
2 beginbfrange <10> <12> [<0078> <0079> <007A>] <20> <22> <0061> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	p.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
	p.add(stream("", "BT /F1 10 Tf 72 700 Td <01 20 21 22 10 11 12 02> Tj ET"))
	p.add("<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Custom /FirstChar 0 /LastChar 255 /Widths [" + strings.Repeat("500 ", 256) + "] /ToUnicode 6 0 R >>")
	p.add(stream("", cmap))
	res := extractBytes(t, p.bytes())
	if want := "fiabcxyzA"; res.Text != want {
		t.Errorf("text %q, want %q", res.Text, want)
	}
}

// A Type0 font with Identity-H: two-byte codes, widths from /W, text from a
// ToUnicode CMap with two-byte codes and a surrogate pair.
func TestType0IdentityH(t *testing.T) {
	t.Parallel()
	cmap := `begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange
3 beginbfchar <0001> <0048> <0002> <0069> <0003> <D83DDE00> endbfchar
1 beginbfrange <0010> <0012> <03B1> endbfrange endcmap`
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	p.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
	// Hi, then a gap of 500/1000 em made by TJ, then αβγ and the emoji.
	p.add(stream("", "BT /F1 10 Tf 72 700 Td [<00010002> -500 <001000110012> <0003>] TJ ET"))
	p.add("<< /Type /Font /Subtype /Type0 /BaseFont /XYZABC+Some-CJK /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 6 0 R >>")
	p.add(stream("", cmap))
	p.add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Some-CJK /DW 1000 /W [1 [600 300] 16 18 500] >>")
	res := extractBytes(t, p.bytes())
	if want := "Hi αβγ😀"; res.Text != want {
		t.Errorf("text %q, want %q", res.Text, want)
	}
}

func TestParseCMapCIDRanges(t *testing.T) {
	t.Parallel()
	data := `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
2 begincodespacerange <00> <80> <8140> <FEFE> endcodespacerange
1 begincidrange <8140> <817E> 633 endcidrange 1 begincidchar <41> 34 endcidchar endcmap end end`
	m := parseCMap([]byte(data))
	if got := codeLen(m.space, "\x81\x41"); got != 2 {
		t.Errorf("codeLen of a two-byte code = %d", got)
	}
	if got := codeLen(m.space, "A"); got != 1 {
		t.Errorf("codeLen of a one-byte code = %d", got)
	}
	if cid, ok := m.lookupCID(0x8142, 2); !ok || cid != 635 {
		t.Errorf("cid of 8142 = %d %v", cid, ok)
	}
	if cid, ok := m.lookupCID(0x41, 1); !ok || cid != 34 {
		t.Errorf("cid of 41 = %d %v", cid, ok)
	}
}

func TestType1BuiltinEncoding(t *testing.T) {
	t.Parallel()
	prog := []byte("%!PS-AdobeFont-1.0: CMSY10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\ndup 0 /minus put\ndup 102 /braceleft put\nreadonly def\ncurrentfile eexec\n")
	names, ok := type1Encoding(prog)
	if !ok || names[0] != "minus" || names[102] != "braceleft" {
		t.Errorf("type1Encoding = %v %q %q", ok, names[0], names[102])
	}
	if _, ok := type1Encoding([]byte("/Encoding StandardEncoding def")); ok {
		t.Error("StandardEncoding program reported a custom encoding")
	}
}

// The same font object used by several pages is decoded once.
func TestFontDecodedOncePerDocument(t *testing.T) {
	t.Parallel()
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 /Resources << /Font << /F1 3 0 R >> >> /MediaBox [0 0 612 792] >>")
	p.add("<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>")
	p.add("<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>")
	p.add(stream("", "BT /F1 10 Tf 72 700 Td (alpha) Tj ET"))
	p.add("<< /Type /Page /Parent 2 0 R /Contents 7 0 R >>")
	p.add(stream("", "BT /F1 10 Tf 72 700 Td (beta) Tj ET"))
	data := p.bytes()
	res := extractBytes(t, data)
	if !strings.Contains(res.Text, "alpha") || !strings.Contains(res.Text, "beta") {
		t.Fatalf("text %q", res.Text)
	}
	if len(res.PageStarts) != 2 || res.Text[res.PageStarts[1]:] != "beta" {
		t.Errorf("page starts %v in %q", res.PageStarts, res.Text)
	}
	// and through the cache directly, which reads the font's dictionary
	// once
	c := newFontCache(nil)
	n, reads := 0, 0
	for range 3 {
		c.get("3 0", func() pdfValue { reads++; return pdfValueForTest(t, data, "F1") })
		n = len(c.m)
	}
	if n != 1 || reads != 1 || !c.has("3 0") {
		t.Errorf("cache holds %d fonts, read %d times", n, reads)
	}
}

// tinyTrueType is a TrueType program holding only a format-4 cmap that
// maps 'A'..'C' to glyphs 1..3 and 'é' to glyph 7.
func tinyTrueType() []byte {
	be := func(b []byte, v ...uint16) []byte {
		for _, x := range v {
			b = append(b, byte(x>>8), byte(x))
		}
		return b
	}
	// format 4 subtable, three segments: A-C, é, and the final 0xFFFF
	var sub []byte
	sub = be(sub, 4, 0, 0, 6, 4, 1, 2) // format, length (patched), language, segCountX2, search params
	sub = be(sub, 'C', 0xE9, 0xFFFF)   // end codes
	sub = be(sub, 0)                   // reserved pad
	sub = be(sub, 'A', 0xE9, 0xFFFF)   // start codes
	d1, d2 := 1-'A', 7-0xE9            // deltas, modulo 65536
	sub = be(sub, uint16(d1), uint16(d2), 1)
	sub = be(sub, 0, 0, 0) // range offsets
	sub[2], sub[3] = byte(len(sub)>>8), byte(len(sub))
	var cmap []byte
	cmap = be(cmap, 0, 1, 3, 1, 0, 12) // version, one record (3,1) at offset 12
	cmap = append(cmap, sub...)
	var prog []byte
	prog = be(prog, 1, 0, 1, 16, 0, 0) // sfnt version 1.0, one table
	prog = append(prog, "cmap"...)
	prog = be(prog, 0, 0, 0, 28, 0, uint16(len(cmap))) // checksum, offset 28, length
	return append(prog, cmap...)
}

func TestTrueTypeCmap(t *testing.T) {
	t.Parallel()
	m := trueTypeGlyphText(tinyTrueType())
	if m[1] != "A" || m[3] != "C" || m[7] != "é" || len(m) != 4 {
		t.Errorf("glyph text = %v", m)
	}
	if trueTypeGlyphText([]byte("garbage that is not a font")) != nil {
		t.Error("garbage parsed as a font")
	}
}

// A CIDFontType2 font with no ToUnicode: text comes from its TrueType cmap.
func TestCIDTrueTypeWithoutToUnicode(t *testing.T) {
	t.Parallel()
	prog := string(tinyTrueType())
	p := &testPDF{}
	p.add("<< /Type /Catalog /Pages 2 0 R >>")
	p.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	p.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>")
	p.add(stream("", "BT /F1 10 Tf 72 700 Td <0003000100020007> Tj ET"))
	p.add("<< /Type /Font /Subtype /Type0 /BaseFont /Tiny /Encoding /Identity-H /DescendantFonts [6 0 R] >>")
	p.add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Tiny /CIDToGIDMap /Identity /DW 600 /FontDescriptor 7 0 R >>")
	p.add("<< /Type /FontDescriptor /FontName /Tiny /Flags 32 /FontFile2 8 0 R >>")
	p.add(stream("", prog))
	res := extractBytes(t, p.bytes())
	if res.Text != "CABé" {
		t.Errorf("text %q", res.Text)
	}
}
