package pdftext

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// font is a PDF font decoded once per document: how to split a string into
// codes, the text and the advance width of each code.
type font struct {
	name string // BaseFont without the subset prefix

	// Simple fonts (Type1, TrueType, Type3): one byte per code.
	text  [256]string
	width [256]float64 // in text space units at font size 1

	// Type0 (composite) fonts.
	composite bool
	space     []codeRange // codespace ranges; empty means two-byte codes
	enc       *cmap       // code → CID; nil for Identity
	ucs2      bool        // codes are UTF-16 (Uni…-UCS2/UTF16 CMaps)
	toUni     *cmap
	cidW      map[uint32]float64
	cidRanges []cidWidthRange
	dw        float64
	gidText   map[uint16]string // glyph id → text from the TrueType cmap, when there is no ToUnicode
	cidToGID  []byte            // CIDToGIDMap stream; empty means identity

	mono      bool    // fixed pitch: a typewriter font
	bold      bool    // a bold or heavier weight
	sizeScale float64 // glyph height relative to the font size (Type3 fonts differ)

	work *docWork // the document's budget and stream cache, while loading
}

type cidWidthRange struct {
	lo, hi uint32
	w      float64
}

// next decodes the code at the start of s: its length in bytes, its value,
// its text and its advance width (text space units at font size 1).
func (f *font) next(s string) (n int, code uint32, text string, w float64) {
	if !f.composite {
		c := s[0]
		return 1, uint32(c), f.text[c], f.width[c]
	}
	n = 0
	if len(f.space) > 0 {
		n = codeLen(f.space, s)
	}
	if n == 0 {
		n = min(2, len(s))
	}
	code = beUint(s[:n])
	cid := code
	if f.enc != nil {
		if c, ok := f.enc.lookupCID(code, n); ok {
			cid = c
		}
	}
	w = f.dw
	if x, ok := f.cidW[cid]; ok {
		w = x
	} else {
		for _, r := range f.cidRanges {
			if cid >= r.lo && cid <= r.hi {
				w = r.w
				break
			}
		}
	}
	if f.toUni != nil {
		if t, ok := f.toUni.lookupUni(code, n); ok && usableText(t) {
			return n, code, t, w
		}
	}
	if f.ucs2 {
		return n, code, string(utf16.Decode(utf16Units(s[:n]))), w
	}
	if f.gidText != nil {
		gid := cid
		if i := 2 * int(cid); len(f.cidToGID) > 0 {
			gid = 0
			if i+1 < len(f.cidToGID) {
				gid = uint32(f.cidToGID[i])<<8 | uint32(f.cidToGID[i+1])
			}
		}
		if gid <= 0xFFFF {
			return n, code, f.gidText[uint16(gid)], w
		}
	}
	return n, code, "", w
}

// usableText reports whether a ToUnicode destination is real text rather
// than a placeholder (empty, NUL, or the replacement character).
func usableText(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if r == 0 || r == utf8.RuneError || r == 0xFFFF {
			return false
		}
	}
	return true
}

// fontCache decodes each font object of a document once, for all workers.
type fontCache struct {
	mu   sync.Mutex
	m    map[string]*fontEntry
	work *docWork // the document's budget and stream cache (nil: none)
}

type fontEntry struct {
	once sync.Once
	f    *font
}

func newFontCache(w *docWork) *fontCache { return &fontCache{m: map[string]*fontEntry{}, work: w} }

// get returns the font for key, loading it from the dictionary v returns
// on first use.
func (c *fontCache) get(key string, v func() pdf.Value) *font {
	c.mu.Lock()
	e := c.m[key]
	if e == nil {
		if len(c.m) > 100_000 { // a hostile file with endless fonts: stop caching
			c.mu.Unlock()
			return loadFont(v(), c.work)
		}
		e = &fontEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.f = loadFont(v(), c.work) })
	return e.f
}

// has reports whether the font for key is cached (or being loaded).
func (c *fontCache) has(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key] != nil
}

// loadFont decodes a font dictionary. It never fails: what cannot be read
// degrades to a font that yields no text for the affected codes.
func loadFont(v pdf.Value, w *docWork) (f *font) {
	f = &font{sizeScale: 1, work: w}
	defer func() { f.work = nil }()
	defer func() {
		_ = recover() // a damaged font keeps what was decoded before the damage
	}()
	f.name = stripSubset(v.Key("BaseFont").Name())
	if v.Key("Subtype").Name() == "Type0" {
		loadType0(f, v)
		return f
	}
	loadSimple(f, v)
	return f
}

func stripSubset(name string) string {
	if len(name) > 7 && name[6] == '+' {
		return name[7:]
	}
	return name
}

func loadSimple(f *font, v pdf.Value) {
	subtype := v.Key("Subtype").Name()
	desc := v.Key("FontDescriptor")
	flags := desc.Key("Flags").Int64()
	f.mono = flags&1 != 0 || monoName(f.name)
	f.bold = boldFont(f.name, desc, flags)

	// Base encoding.
	var base [256]rune
	var names [256]string // glyph names where known (Differences, font program)
	encV := v.Key("Encoding")
	encName := encV.Name()
	if encV.Kind() == pdf.Dict {
		encName = encV.Key("BaseEncoding").Name()
	}
	switch encName {
	case "WinAnsiEncoding":
		base = winAnsiEncoding
	case "MacRomanEncoding":
		base = macRomanEncoding
	case "StandardEncoding", "MacExpertEncoding":
		base = standardEncoding
	default:
		base = builtinEncoding(f, v, desc, subtype, flags, &names)
	}
	if encV.Kind() == pdf.Dict {
		d := encV.Key("Differences")
		code := 0
		for i := 0; i < d.Len() && i < 4096; i++ {
			x := d.Index(i)
			switch x.Kind() {
			case pdf.Integer:
				code = int(x.Int64())
			case pdf.Name:
				if code >= 0 && code < 256 {
					names[code] = x.Name()
					base[code] = 0
				}
				code++
			}
		}
	}
	var toUni *cmap
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		toUni = parseCMap(f.stream(v, "ToUnicode", maxStreamBytes/4))
	}
	for c := range 256 {
		if toUni != nil {
			if t, ok := toUni.lookupUni(uint32(c), 1); ok && usableText(t) {
				f.text[c] = t
				continue
			}
		}
		if names[c] != "" {
			f.text[c] = glyphNameText(names[c])
		} else if base[c] != 0 {
			f.text[c] = string(base[c])
		}
	}

	// Widths.
	scale := 0.001
	if subtype == "Type3" {
		m := floats(v.Key("FontMatrix"), 6)
		if len(m) == 6 && m[0] != 0 {
			scale = abs(m[0])
			if m[3] != 0 {
				f.sizeScale = clamp(abs(m[3])*1000, 0.05, 20)
			}
		}
	}
	missing := desc.Key("MissingWidth").Float64() * scale
	ws := v.Key("Widths")
	if ws.Kind() == pdf.Array && ws.Len() > 0 {
		first := int(v.Key("FirstChar").Int64())
		for c := range 256 {
			f.width[c] = missing
		}
		for i := 0; i < ws.Len() && i < 256; i++ {
			if c := first + i; c >= 0 && c < 256 {
				f.width[c] = ws.Index(i).Float64() * scale
			}
		}
	} else {
		stdWidths(f, base, names)
	}
	if !f.mono && subtype != "Type3" {
		f.mono = equalWidths(f)
	}
}

// builtinEncoding is the encoding of a font whose dictionary names none:
// the standard fonts' own, the one in an embedded Type 1 program, or
// StandardEncoding.
func builtinEncoding(f *font, v, desc pdf.Value, subtype string, flags int64, names *[256]string) [256]rune {
	switch {
	case strings.HasPrefix(f.name, "Symbol"):
		return symbolEncoding
	case strings.Contains(f.name, "Dingbats"):
		return [256]rune{}
	}
	if ff := desc.Key("FontFile"); ff.Kind() == pdf.Stream {
		limit := int(ff.Key("Length1").Int64())
		if limit <= 0 || limit > 1<<20 {
			limit = 1 << 20
		}
		if enc, ok := type1Encoding(f.stream(desc, "FontFile", limit)); ok {
			*names = enc
			return [256]rune{}
		}
		return standardEncoding
	}
	if subtype == "TrueType" {
		if flags&4 != 0 { // symbolic: codes are used as they are
			var id [256]rune
			for c := 32; c < 256; c++ {
				id[c] = winAnsiEncoding[c]
			}
			return id
		}
		return winAnsiEncoding
	}
	return standardEncoding
}

var type1EncRE = regexp.MustCompile(`dup\s+(\d+)\s*/([^\s/\[\]{}()<>]+)\s+put`)

// type1Encoding reads the encoding vector of a Type 1 font program's
// cleartext part; ok is false when the program uses StandardEncoding.
func type1Encoding(data []byte) (names [256]string, ok bool) {
	i := bytes.Index(data, []byte("/Encoding"))
	if i < 0 {
		return names, false
	}
	rest := data[i:]
	if bytes.HasPrefix(bytes.TrimSpace(rest[len("/Encoding"):]), []byte("StandardEncoding")) {
		return names, false
	}
	if j := bytes.Index(rest, []byte("readonly def")); j > 0 {
		rest = rest[:j]
	} else if j := bytes.Index(rest, []byte("eexec")); j > 0 {
		rest = rest[:j]
	}
	for _, m := range type1EncRE.FindAllSubmatch(rest, 512) {
		c, err := strconv.Atoi(string(m[1]))
		if err == nil && c >= 0 && c < 256 {
			names[c] = string(m[2])
			ok = true
		}
	}
	return names, ok
}

func monoName(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"courier", "mono", "consol", "inconsolata", "typewriter", "menlo", "cmtt", "sltt", "lmtt", "cmsltt", "fixed", "code"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// boldNameRE matches the weight part of bold font names: "Bold",
// "SemiBold", "Black", "Heavy", "Demi", URW's "Medi" (NimbusRomNo9L-Medi),
// the Computer Modern, Latin Modern and EC bold fonts (CMBX12, CMB10,
// CMSSBX10, LMRomanDemi10, ECBX1200), and the Berry names of TeX's
// PostScript fonts (ptmb8r, phvbo8t: Times and Helvetica bold).
var boldNameRE = regexp.MustCompile(`(?i)(bold|black|heavy|demi|-medi(ital)?$|-bd$|^(cm|lm)\w*bx|^cmb\d|^ecb[xi]|^p[a-z]{2}[bdhc][io]?\d[a-z])`)

// boldFont reports whether a font is bold, from its name or its
// descriptor: the ForceBold flag, a /FontWeight of 600 or more, or a stem
// as thick as bold faces have (regular text faces stay below 100).
func boldFont(name string, desc pdf.Value, flags int64) bool {
	if boldNameRE.MatchString(name) {
		return true
	}
	if flags&(1<<18) != 0 {
		return true
	}
	if w := desc.Key("FontWeight").Float64(); w >= 600 {
		return true
	}
	return desc.Key("StemV").Float64() >= 130
}

// equalWidths reports whether every glyph with a width has the same one.
func equalWidths(f *font) bool {
	var w float64
	n := 0
	for c := 33; c < 256; c++ {
		if f.text[c] == "" || f.width[c] == 0 {
			continue
		}
		if n > 0 && abs(f.width[c]-w) > 1e-6 {
			return false
		}
		w = f.width[c]
		n++
	}
	return n >= 10
}

var stdWidthTables sync.Map // font name → map[rune]float64

func stdWidthTable(name string) map[rune]float64 {
	if t, ok := stdWidthTables.Load(name); ok {
		return t.(map[rune]float64)
	}
	t := map[rune]float64{}
	for pair := range strings.SplitSeq(stdFontWidths[name], " ") {
		h, w, ok := strings.Cut(pair, ":")
		if !ok {
			continue
		}
		r, err1 := strconv.ParseUint(h, 16, 32)
		x, err2 := strconv.Atoi(w)
		if err1 == nil && err2 == nil {
			t[rune(r)] = float64(x) / 1000
		}
	}
	stdWidthTables.Store(name, t)
	return t
}

// stdWidths fills widths of a font without /Widths from the metrics of the
// standard 14 fonts (or the closest of them).
func stdWidths(f *font, base [256]rune, names [256]string) {
	n := strings.ToLower(strings.ReplaceAll(f.name, " ", ""))
	switch {
	case f.mono || strings.Contains(n, "courier"):
		for c := range 256 {
			f.width[c] = 0.6
		}
		f.mono = true
		return
	case strings.HasPrefix(n, "symbol"):
		for c := range 256 {
			f.width[c] = float64(symbolWidths[c]) / 1000
		}
		return
	case strings.Contains(n, "dingbats"):
		for c := range 256 {
			f.width[c] = float64(dingbatsWidths[c]) / 1000
		}
		return
	}
	bold := strings.Contains(n, "bold") || strings.Contains(n, "black") || strings.Contains(n, "heavy")
	italic := strings.Contains(n, "italic") || strings.Contains(n, "oblique")
	var key string
	if strings.Contains(n, "times") || strings.Contains(n, "roman") || strings.Contains(n, "serif") && !strings.Contains(n, "sans") {
		key = map[[2]bool]string{{false, false}: "Times-Roman", {true, false}: "Times-Bold", {false, true}: "Times-Italic", {true, true}: "Times-BoldItalic"}[[2]bool{bold, italic}]
	} else {
		key = map[[2]bool]string{{false, false}: "Helvetica", {true, false}: "Helvetica-Bold", {false, true}: "Helvetica-Oblique", {true, true}: "Helvetica-BoldOblique"}[[2]bool{bold, italic}]
	}
	t := stdWidthTable(key)
	for c := range 256 {
		r := base[c]
		if names[c] != "" {
			if s := glyphNameText(names[c]); s != "" {
				r, _ = utf8.DecodeRuneInString(s)
			}
		}
		if w, ok := t[r]; ok {
			f.width[c] = w
		} else if r != 0 {
			f.width[c] = 0.5
		}
	}
}

func loadType0(f *font, v pdf.Value) {
	f.composite = true
	f.dw = 1
	encV := v.Key("Encoding")
	switch encV.Kind() {
	case pdf.Name:
		name := encV.Name()
		f.ucs2 = predefinedUnicodeCMap(name)
	case pdf.Stream:
		m := parseCMap(f.stream(v, "Encoding", maxStreamBytes/4))
		f.space = m.space
		if len(m.cid) > 0 || len(m.cidRanges) > 0 {
			f.enc = m
		}
		f.ucs2 = predefinedUnicodeCMap(m.useCMap)
	}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.toUni = parseCMap(f.stream(v, "ToUnicode", maxStreamBytes/4))
		if len(f.space) == 0 && encV.Kind() != pdf.Name {
			f.space = f.toUni.space
		}
	}
	desc := v.Key("DescendantFonts").Index(0)
	if f.toUni == nil && !f.ucs2 {
		cidGlyphText(f, desc)
	}
	fd := desc.Key("FontDescriptor")
	f.mono = fd.Key("Flags").Int64()&1 != 0 || monoName(f.name)
	f.bold = boldFont(f.name, fd, fd.Key("Flags").Int64())
	if dw := desc.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.dw = dw.Float64() / 1000
	}
	f.cidW = map[uint32]float64{}
	w := desc.Key("W")
	for i := 0; i < w.Len() && len(f.cidW) < maxCMapEntries; {
		first := w.Index(i)
		if first.Kind() != pdf.Integer {
			break
		}
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			c := uint32(first.Int64())
			for k := 0; k < next.Len() && len(f.cidW) < maxCMapEntries; k++ {
				f.cidW[c+uint32(k)] = next.Index(k).Float64() / 1000
			}
			i += 2
			continue
		}
		last := w.Index(i + 2)
		if next.Kind() != pdf.Integer || (last.Kind() != pdf.Integer && last.Kind() != pdf.Real) {
			break
		}
		lo, hi := uint32(first.Int64()), uint32(next.Int64())
		if hi >= lo {
			f.cidRanges = append(f.cidRanges, cidWidthRange{lo, hi, last.Float64() / 1000})
		}
		i += 3
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func clamp(x, lo, hi float64) float64 { return max(lo, min(hi, x)) }

// cleanRune maps a decoded rune to what the text should hold: "" drops it,
// " " marks a word break.
func cleanRune(r rune) string {
	if c, ok := cleanedRune(r); ok {
		return c
	}
	return string(r)
}

// cleanedRune is what cleanRune maps r to, and true, when that is not r
// itself: the text of most glyphs is appended as it is, without making a
// string of each non-ASCII rune.
func cleanedRune(r rune) (string, bool) {
	switch {
	case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == 0xA0 || r == 0x3000 || r == 0x202F || r == 0x205F || (r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029:
		return " ", true
	case r < 0x20 || (r >= 0x7F && r < 0xA0) || r == utf8.RuneError || r == 0xFEFF || r == 0xFFFF || (r >= 0x200B && r <= 0x200F) || r == 0x2060 || (r >= 0x202A && r <= 0x202E):
		return "", true
	case r == 0xAD || r == 0x2010 || r == 0x2011:
		return "-", true
	case r == 0x2126: // the AGL's Omega is the ohm sign
		return "Ω", true
	case r >= 0xFB00 && r <= 0xFB06:
		return [...]string{"ff", "fi", "fl", "ffi", "ffl", "st", "st"}[r-0xFB00], true
	case r >= 0xE000 && r <= 0xF8FF: // private use: no meaning outside the font
		return "", true
	case unicode.Is(unicode.Cs, r):
		return "", true
	}
	return "", false
}
