package pdftext

import (
	"bytes"
	"context"
	"errors"
	"math"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"

	"github.com/citelens/citelens/ingest/pdftext/pdffile"
)

// glyph is one shown glyph (or multi-letter ligature) in the reading frame
// of its orientation: u runs along the text, v down the page, baseline at v.
type glyph struct {
	u0, u1, v, size float32
	off, n          uint32 // text bytes in page.buf
	rot             uint8
	mono, bold      bool
	space           bool // a word break comes before this glyph
}

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: m applied first, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

type gstate struct {
	ctm                    matrix
	tc, tw, th, tl, ts, fs float64
	font                   *font
}

// resCtx is a resource dictionary in use, with its fonts resolved lazily.
type resCtx struct {
	res   pdf.Value
	fonts pdf.Value
	refs  map[string]string
	byNm  map[string]*font
	xobj  pdf.Value
	xrefs map[string]string // XObject name → "id gen"
}

func newResCtx(res pdf.Value) *resCtx {
	return &resCtx{res: res, byNm: map[string]*font{}}
}

// errStop ends the interpretation of a page early (budget or cancellation).
var (
	errBudget   = errors.New("page content exceeds the size limits")
	errCanceled = errors.New("canceled")
)

// pageContent interprets one page's content and collects its glyphs.
type pageContent struct {
	ctx       context.Context
	fonts     *fontCache
	work      *docWork // the document's budget and stream cache
	glyphs    []glyph
	buf       []byte
	g         gstate
	tm, tlm   matrix
	stack     []gstate
	ops       int
	formCalls int
	formBytes int
	depth     int
	space     bool // a word break is pending before the next glyph
	args      []pdf.Value
}

func (pc *pageContent) font(rc *resCtx, name string) *font {
	if f, ok := rc.byNm[name]; ok {
		return f
	}
	if rc.refs == nil {
		rc.fonts = rc.res.Key("Font")
		rc.refs = pdffile.RefKeys(rc.fonts)
	}
	// A font the document's pages share is cached under its reference,
	// and only the first page to use it need parse its dictionary: the
	// library parses an object again each time it is looked up.
	var f *font
	if key := rc.refs[name]; key != "" && pc.fonts.has(key) {
		f = pc.fonts.get(key, func() pdf.Value { return rc.fonts.Key(name) })
	} else if v := rc.fonts.Key(name); v.Kind() == pdf.Dict {
		if key == "" {
			key = "direct " + v.String()
		}
		f = pc.fonts.get(key, func() pdf.Value { return v })
	}
	rc.byNm[name] = f
	return f
}

// run interprets content (already decoded bytes) with resources rc.
func (pc *pageContent) run(content []byte, rc *resCtx) {
	if !pc.work.interpret(len(content)) {
		panic(errDocBudget)
	}
	_ = pdffile.Interpret(stripInlineImages(content), func(stk *pdf.Stack, op string) { pc.op(stk, op, rc) })
}

func (pc *pageContent) popArgs(stk *pdf.Stack) []pdf.Value {
	a := pc.args[:0]
	for stk.Len() > 0 {
		a = append(a, stk.Pop())
	}
	for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
		a[i], a[j] = a[j], a[i]
	}
	pc.args = a
	return a
}

func argf(a []pdf.Value, i int) float64 {
	if i < len(a) {
		return a[i].Float64()
	}
	return 0
}

func (pc *pageContent) op(stk *pdf.Stack, op string, rc *resCtx) {
	pc.ops++
	if pc.ops > maxPageOps {
		panic(errBudget)
	}
	if pc.ops&4095 == 0 {
		if pc.ctx.Err() != nil {
			panic(errCanceled)
		}
		if !pc.work.operators(4096) {
			panic(errDocBudget)
		}
	}
	a := pc.popArgs(stk)
	g := &pc.g
	switch op {
	case "q":
		if len(pc.stack) < 256 {
			pc.stack = append(pc.stack, *g)
		}
	case "Q":
		if n := len(pc.stack); n > 0 {
			*g = pc.stack[n-1]
			pc.stack = pc.stack[:n-1]
		}
	case "cm":
		if len(a) >= 6 {
			g.ctm = matrix{argf(a, 0), argf(a, 1), argf(a, 2), argf(a, 3), argf(a, 4), argf(a, 5)}.mul(g.ctm)
		}
	case "BT":
		pc.tm, pc.tlm = identity, identity
	case "Tc":
		g.tc = argf(a, 0)
	case "Tw":
		g.tw = argf(a, 0)
	case "Tz":
		g.th = argf(a, 0) / 100
	case "TL":
		g.tl = argf(a, 0)
	case "Ts":
		g.ts = argf(a, 0)
	case "Tf":
		if len(a) >= 2 {
			g.font = pc.font(rc, a[0].Name())
			g.fs = argf(a, 1)
		}
	case "Td":
		pc.td(argf(a, 0), argf(a, 1))
	case "TD":
		g.tl = -argf(a, 1)
		pc.td(argf(a, 0), argf(a, 1))
	case "Tm":
		if len(a) >= 6 {
			pc.tm = matrix{argf(a, 0), argf(a, 1), argf(a, 2), argf(a, 3), argf(a, 4), argf(a, 5)}
			pc.tlm = pc.tm
		}
	case "T*":
		pc.td(0, -g.tl)
	case "Tj":
		if len(a) >= 1 {
			pc.show(a[len(a)-1].RawString())
		}
	case "'":
		pc.td(0, -g.tl)
		if len(a) >= 1 {
			pc.show(a[len(a)-1].RawString())
		}
	case "\"":
		if len(a) >= 3 {
			g.tw, g.tc = argf(a, 0), argf(a, 1)
			pc.td(0, -g.tl)
			pc.show(a[2].RawString())
		}
	case "TJ":
		if len(a) < 1 {
			return
		}
		arr := a[len(a)-1]
		for i := 0; i < arr.Len(); i++ {
			x := arr.Index(i)
			switch x.Kind() {
			case pdf.String:
				pc.show(x.RawString())
			case pdf.Integer, pdf.Real:
				tx := -x.Float64() / 1000 * g.fs * g.th
				pc.tm[4] += tx * pc.tm[0]
				pc.tm[5] += tx * pc.tm[1]
			}
		}
	case "Do":
		if len(a) >= 1 {
			pc.doXObject(rc, a[len(a)-1].Name())
		}
	}
}

func (pc *pageContent) td(tx, ty float64) {
	pc.tlm = matrix{1, 0, 0, 1, tx, ty}.mul(pc.tlm)
	pc.tm = pc.tlm
}

func (pc *pageContent) doXObject(rc *resCtx, name string) {
	if pc.depth >= maxFormDepth || pc.formCalls >= maxFormCalls {
		return
	}
	if rc.xobj.IsNull() {
		rc.xobj = rc.res.Key("XObject")
		rc.xrefs = pdffile.RefKeys(rc.xobj)
	}
	x := rc.xobj.Key(name)
	if x.Kind() != pdf.Stream || x.Key("Subtype").Name() != "Form" {
		return
	}
	pc.formCalls++
	data, err := pc.work.stream(x, rc.xrefs[name], maxStreamBytes)
	if err == errDocBudget {
		panic(errDocBudget)
	}
	if pc.formBytes += len(data); pc.formBytes > 4*maxStreamBytes {
		panic(errBudget)
	}
	if len(data) == 0 {
		return
	}
	saved, savedStack := pc.g, len(pc.stack)
	savedTm, savedTlm := pc.tm, pc.tlm
	if m := floats(x.Key("Matrix"), 6); len(m) == 6 {
		pc.g.ctm = matrix{m[0], m[1], m[2], m[3], m[4], m[5]}.mul(pc.g.ctm)
	}
	inner := rc
	if r := x.Key("Resources"); r.Kind() == pdf.Dict {
		inner = newResCtx(r)
	}
	pc.depth++
	pc.run(data, inner)
	pc.depth--
	pc.g, pc.stack = saved, pc.stack[:min(savedStack, len(pc.stack))]
	pc.tm, pc.tlm = savedTm, savedTlm
}

// show places the glyphs of one string.
func (pc *pageContent) show(s string) {
	g := &pc.g
	f := g.font
	if f == nil || len(s) == 0 {
		return
	}
	for len(s) > 0 {
		n, code, text, w := f.next(s)
		s = s[n:]
		m := pc.tm.mul(g.ctm)
		ox, oy := m.apply(0, g.ts)
		adv := w * g.fs * g.th
		ex, ey := ox+adv*m[0], oy+adv*m[1]
		tx := (w*g.fs + g.tc) * g.th
		if n == 1 && code == 32 {
			tx += g.tw * g.th
		}
		pc.tm[4] += tx * pc.tm[0]
		pc.tm[5] += tx * pc.tm[1]
		if text == "" {
			continue
		}
		// A space breaks a word only when it moves the pen: producers
		// also use spaces with a negative word spacing as kerning.
		wide := math.Abs(tx) >= 0.1*math.Abs(g.fs*g.th)
		pc.addGlyph(text, ox, oy, ex, ey, m, f, wide)
	}
}

func (pc *pageContent) addGlyph(text string, ox, oy, ex, ey float64, m matrix, f *font, wide bool) {
	if len(pc.glyphs) >= maxPageGlyphs {
		panic(errBudget)
	}
	// Clean the text; spaces become word breaks.
	start := len(pc.buf)
	for _, r := range text {
		c, changed := cleanedRune(r)
		if !changed {
			pc.buf = utf8.AppendRune(pc.buf, r)
			continue
		}
		if c == " " {
			if len(pc.buf) > start {
				// a space inside a multi-letter glyph: keep the letters
				// before it as their own glyph
				pc.flushGlyph(start, ox, oy, ex, ey, m, f)
				start = len(pc.buf)
			}
			if wide {
				pc.space = true
			}
			continue
		}
		pc.buf = append(pc.buf, c...)
	}
	if len(pc.buf) > start {
		pc.flushGlyph(start, ox, oy, ex, ey, m, f)
	}
}

func (pc *pageContent) flushGlyph(start int, ox, oy, ex, ey float64, m matrix, f *font) {
	g := &pc.g
	dx, dy := ex-ox, ey-oy
	if dx == 0 && dy == 0 {
		dx, dy = m[0], m[1]
	}
	size := g.fs * math.Hypot(m[2], m[3]) * f.sizeScale
	if size <= 0 || math.IsNaN(size) || math.IsInf(size, 0) || math.IsNaN(ox+oy+ex+ey) {
		pc.buf = pc.buf[:start]
		return
	}
	var rot uint8
	var u0, u1, v float64
	if math.Abs(dx) >= math.Abs(dy) {
		if dx >= 0 {
			rot, u0, u1, v = 0, ox, ex, -oy
		} else {
			rot, u0, u1, v = 2, -ox, -ex, oy
		}
	} else if dy > 0 {
		rot, u0, u1, v = 1, oy, ey, ox
	} else {
		rot, u0, u1, v = 3, -oy, -ey, -ox
	}
	if u1 < u0 {
		u1 = u0
	}
	pc.glyphs = append(pc.glyphs, glyph{
		u0: float32(u0), u1: float32(u1), v: float32(v), size: float32(size),
		off: uint32(start), n: uint32(len(pc.buf) - start),
		rot: rot, mono: f.mono, bold: f.bold, space: pc.space,
	})
	pc.space = false
}

// stripInlineImages blanks the binary data of inline images (BI … ID … EI),
// which would otherwise be read as operators, and cuts the data before a
// hex string that is never closed (on which the library's lexer would loop
// forever).
func stripInlineImages(data []byte) []byte {
	out := data
	copied := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '<':
			if i+1 < len(data) && data[i+1] == '<' {
				i++
				continue
			}
			j := bytes.IndexByte(data[i:], '>')
			if j < 0 {
				return out[:i]
			}
			i += j
		case '%':
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
		case '(':
			depth := 0
			for ; i < len(data); i++ {
				switch data[i] {
				case '\\':
					i++
				case '(':
					depth++
				case ')':
					depth--
				}
				if depth == 0 {
					break
				}
			}
		case 'B':
			if i+1 < len(data) && data[i+1] == 'I' && (i == 0 || isWS(data[i-1])) && (i+2 == len(data) || isWS(data[i+2])) {
				id := indexToken(data, i+2, "ID")
				if id < 0 { // an inline image cut short: nothing readable follows
					return out[:i]
				}
				ei := id + 3
				for ei < len(data) && !(data[ei] == 'E' && ei+1 < len(data) && data[ei+1] == 'I' && isWS(data[ei-1]) && (ei+2 == len(data) || isWS(data[ei+2]))) {
					ei++
				}
				end := min(ei+2, len(data))
				if !copied {
					out = append([]byte(nil), data...)
					copied = true
				}
				for k := i; k < end; k++ {
					out[k] = ' '
				}
				i = end
			}
		}
	}
	return out
}

func isWS(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

// indexToken finds the whitespace-delimited token tok at or after i.
func indexToken(data []byte, i int, tok string) int {
	for {
		j := bytes.Index(data[i:], []byte(tok))
		if j < 0 {
			return -1
		}
		k := i + j
		if (k == 0 || isWS(data[k-1])) && (k+len(tok) == len(data) || isWS(data[k+len(tok)])) {
			return k
		}
		i = k + 1
	}
}
