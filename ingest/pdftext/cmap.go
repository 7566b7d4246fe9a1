package pdftext

import (
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"

	"github.com/citelens/citelens/ingest/pdftext/pdffile"
)

// codeRange is one codespace range: codes of n bytes whose every byte lies
// between the matching bytes of lo and hi.
type codeRange struct {
	lo, hi [4]byte
	n      int
}

// uniRange maps a range of codes to text: base for lo, incremented in its
// last UTF-16 unit for the codes after it. (A bfrange given as an array is
// stored code by code.)
type uniRange struct {
	lo, hi uint32
	n      int
	base   []uint16
}

type cidRange struct {
	lo, hi uint32
	n      int
	cid    uint32
}

// cmap is a parsed CMap: a ToUnicode map (code → text) or an encoding CMap
// of a Type0 font (code → CID), with its codespace ranges.
type cmap struct {
	space     []codeRange
	uni       map[uint64]string
	uniRanges []uniRange
	cid       map[uint64]uint32
	cidRanges []cidRange
	useCMap   string // a predefined CMap this one builds on (usecmap)
	entries   int
}

func codeKey(code uint32, n int) uint64 { return uint64(n)<<32 | uint64(code) }

// parseCMap reads a CMap stream's decoded data. A damaged CMap yields what
// was parsed.
func parseCMap(data []byte) (m *cmap) {
	m = &cmap{uni: map[uint64]string{}, cid: map[uint64]uint32{}}
	if len(data) == 0 {
		return m
	}
	defer func() {
		// The interpreter panics on PostScript it does not handle; keep
		// the entries read so far.
		_ = recover()
	}()
	var args []pdf.Value
	popAll := func(stk *pdf.Stack) []pdf.Value {
		args = args[:0]
		for stk.Len() > 0 {
			args = append(args, stk.Pop())
		}
		for i, j := 0, len(args)-1; i < j; i, j = i+1, j-1 {
			args[i], args[j] = args[j], args[i]
		}
		return args
	}
	_ = pdffile.Interpret(stripInlineImages(data), func(stk *pdf.Stack, op string) {
		switch op {
		case "findresource":
			popAll(stk)
			if d, err := pdffile.EmptyDict(); err == nil {
				stk.Push(d)
			}
		case "defineresource":
			a := popAll(stk)
			if len(a) >= 2 {
				stk.Push(a[len(a)-2])
			}
		case "usecmap":
			a := popAll(stk)
			if len(a) > 0 {
				m.useCMap = a[len(a)-1].Name()
			}
		case "begincodespacerange", "beginbfchar", "beginbfrange", "begincidchar", "begincidrange", "beginnotdefchar", "beginnotdefrange":
			popAll(stk) // the count, which producers get wrong; the end operator takes what is there
		case "endcodespacerange":
			a := popAll(stk)
			for i := 0; i+1 < len(a); i += 2 {
				lo, hi := a[i].RawString(), a[i+1].RawString()
				if len(lo) == 0 || len(lo) != len(hi) || len(lo) > 4 {
					continue
				}
				var r codeRange
				r.n = len(lo)
				copy(r.lo[:], lo)
				copy(r.hi[:], hi)
				m.space = append(m.space, r)
			}
		case "endbfchar":
			a := popAll(stk)
			for i := 0; i+1 < len(a); i += 2 {
				src := a[i].RawString()
				if len(src) == 0 || len(src) > 4 || !m.room(1) {
					continue
				}
				m.uni[codeKey(beUint(src), len(src))] = utf16Text(a[i+1].RawString())
			}
		case "endbfrange":
			a := popAll(stk)
			for i := 0; i+2 < len(a); i += 3 {
				m.addBfRange(a[i].RawString(), a[i+1].RawString(), a[i+2])
			}
		case "endcidchar":
			a := popAll(stk)
			for i := 0; i+1 < len(a); i += 2 {
				src := a[i].RawString()
				if len(src) == 0 || len(src) > 4 || !m.room(1) {
					continue
				}
				m.cid[codeKey(beUint(src), len(src))] = uint32(a[i+1].Int64())
			}
		case "endcidrange":
			a := popAll(stk)
			for i := 0; i+2 < len(a); i += 3 {
				lo, hi := a[i].RawString(), a[i+1].RawString()
				if len(lo) == 0 || len(lo) > 4 || len(lo) != len(hi) {
					continue
				}
				l, h := beUint(lo), beUint(hi)
				if h < l || !m.room(1) {
					continue
				}
				m.cidRanges = append(m.cidRanges, cidRange{l, h, len(lo), uint32(a[i+2].Int64())})
			}
		default:
			// begincmap, endcmap, def'd names and anything else: leave
			// the operands for the enclosing operator.
		}
	})
	return m
}

func (m *cmap) room(n int) bool {
	if m.entries+n > maxCMapEntries {
		return false
	}
	m.entries += n
	return true
}

func (m *cmap) addBfRange(lo, hi string, dst pdf.Value) {
	if len(lo) == 0 || len(lo) > 4 || len(lo) != len(hi) {
		return
	}
	l, h := beUint(lo), beUint(hi)
	if h < l || !m.room(1) {
		return
	}
	n := len(lo)
	switch dst.Kind() {
	case pdf.Array:
		cnt := min(int(h-l)+1, dst.Len())
		if !m.room(cnt) {
			return
		}
		for k := range cnt {
			m.uni[codeKey(l+uint32(k), n)] = utf16Text(dst.Index(k).RawString())
		}
	case pdf.String:
		base := utf16Units(dst.RawString())
		if len(base) == 0 {
			return
		}
		if h-l < 256 && m.room(int(h-l)) {
			for c := l; ; c++ {
				u := append([]uint16(nil), base...)
				u[len(u)-1] += uint16(c - l)
				m.uni[codeKey(c, n)] = string(utf16.Decode(u))
				if c == h {
					break
				}
			}
			return
		}
		m.uniRanges = append(m.uniRanges, uniRange{lo: l, hi: h, n: n, base: base})
	}
}

// lookupUni returns the text of a code of n bytes, and whether it is mapped.
func (m *cmap) lookupUni(code uint32, n int) (string, bool) {
	if s, ok := m.uni[codeKey(code, n)]; ok {
		return s, true
	}
	for _, r := range m.uniRanges {
		if r.n == n && code >= r.lo && code <= r.hi {
			u := append([]uint16(nil), r.base...)
			u[len(u)-1] += uint16(code - r.lo)
			return string(utf16.Decode(u)), true
		}
	}
	return "", false
}

// lookupCID returns the CID of a code of n bytes.
func (m *cmap) lookupCID(code uint32, n int) (uint32, bool) {
	if c, ok := m.cid[codeKey(code, n)]; ok {
		return c, true
	}
	for _, r := range m.cidRanges {
		if r.n == n && code >= r.lo && code <= r.hi {
			return r.cid + (code - r.lo), true
		}
	}
	return 0, false
}

// codeLen returns the length of the code at the start of s by the
// codespace ranges, or 0 when they do not say.
func codeLen(space []codeRange, s string) int {
	for n := 1; n <= 4 && n <= len(s); n++ {
		for _, r := range space {
			if r.n != n {
				continue
			}
			ok := true
			for i := range n {
				if s[i] < r.lo[i] || s[i] > r.hi[i] {
					ok = false
					break
				}
			}
			if ok {
				return n
			}
		}
	}
	return 0
}

func beUint(s string) uint32 {
	var x uint32
	for i := 0; i < len(s) && i < 4; i++ {
		x = x<<8 | uint32(s[i])
	}
	return x
}

func utf16Units(s string) []uint16 {
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	if len(s)%2 == 1 { // a one-byte destination: take it as a code point
		u = append(u, uint16(s[len(s)-1]))
	}
	return u
}

// utf16Text decodes a big-endian UTF-16 CMap destination.
func utf16Text(s string) string {
	if len(s) == 1 {
		return string(rune(s[0]))
	}
	return string(utf16.Decode(utf16Units(s)))
}

// predefinedUnicodeCMap reports whether a predefined CMap name maps codes
// straight to UTF-16 (UCS-2) code units.
func predefinedUnicodeCMap(name string) bool {
	return strings.HasPrefix(name, "Uni") && (strings.Contains(name, "UCS2") || strings.Contains(name, "UTF16"))
}
