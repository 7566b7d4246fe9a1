package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// The library sizes its cross-reference table from numbers in the file
// (/Size, /Index, subsection headers) before reading any object, so a
// damaged or hostile number would make it allocate without bound. These
// limits stop such files before the library sees them.
const (
	maxXrefObjects = 8_000_000
	xrefScanBytes  = 1 << 20
)

var (
	startxrefRE = regexp.MustCompile(`startxref\s+(\d+)`)
	sizeRE      = regexp.MustCompile(`/(?:Size|Prev)\s+(\d+)`)
	indexRE     = regexp.MustCompile(`/Index\s*\[([\d\s]*)\]`)
	subsecRE    = regexp.MustCompile(`(?m)^\s*(\d+)\s+(\d+)\s*$`)
)

// checkXref rejects files whose cross-reference numbers would make the
// library allocate an absurd table.
func checkXref(r io.ReaderAt, size int64) error {
	limit := min(int64(maxXrefObjects), size*50+100_000)
	tail := make([]byte, min(size, 2048))
	n, _ := r.ReadAt(tail, size-int64(len(tail)))
	ms := startxrefRE.FindAllSubmatch(tail[:n], -1)
	if len(ms) == 0 {
		return nil // the library reports the missing startxref itself
	}
	off, err := strconv.ParseInt(string(ms[len(ms)-1][1]), 10, 64)
	if err != nil || off < 0 || off >= size {
		return nil
	}
	buf := make([]byte, min(size-off, xrefScanBytes))
	n, _ = r.ReadAt(buf, off)
	text := string(buf[:n])
	if end := strings.Index(text, "startxref"); end >= 0 {
		text = text[:end]
	}
	check := func(what string, v int64) error {
		if v > limit {
			return fmt.Errorf("the cross-reference %s %d is out of range", what, v)
		}
		return nil
	}
	for _, m := range sizeRE.FindAllStringSubmatch(text, -1) {
		v, _ := strconv.ParseInt(m[1], 10, 64)
		if strings.HasPrefix(m[0], "/Size") {
			if err := check("size", v); err != nil {
				return err
			}
		}
	}
	for _, m := range indexRE.FindAllStringSubmatch(text, -1) {
		f := strings.Fields(m[1])
		for i := 0; i+1 < len(f); i += 2 {
			a, _ := strconv.ParseInt(f[i], 10, 64)
			b, _ := strconv.ParseInt(f[i+1], 10, 64)
			if err := check("index", a+b); err != nil {
				return err
			}
		}
	}
	if strings.HasPrefix(strings.TrimSpace(text), "xref") {
		body := text
		if i := strings.Index(body, "trailer"); i >= 0 {
			body = body[:i]
		}
		for _, m := range subsecRE.FindAllStringSubmatch(body, -1) {
			a, _ := strconv.ParseInt(m[1], 10, 64)
			b, _ := strconv.ParseInt(m[2], 10, 64)
			if err := check("subsection", a+b); err != nil {
				return err
			}
		}
	}
	return nil
}

// arrayRefs returns, for each element of an array's textual form (as the
// library prints it), its "id gen" when it is an indirect reference, or "".
// It returns nil when the text cannot be split reliably.
func arrayRefs(s string) []string {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil
	}
	s = s[1 : len(s)-1]
	var atoms []string
	depth := 0
	start := -1
	flush := func(i int) {
		if start >= 0 {
			atoms = append(atoms, s[start:i])
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			if start < 0 {
				start = i
			}
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case c == '[' || c == '<' && i+1 < len(s) && s[i+1] == '<':
			if depth == 0 {
				flush(i)
				start = i
			}
			depth++
			if c == '<' {
				i++
			}
		case c == ']' || c == '>' && i+1 < len(s) && s[i+1] == '>':
			depth--
			if c == '>' {
				i++
			}
			if depth == 0 {
				atoms = append(atoms, s[start:i+1])
				start = -1
			}
		case c == ' ' && depth == 0:
			flush(i)
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(s))
	var out []string
	for i := 0; i < len(atoms); i++ {
		if i+2 < len(atoms) && atoms[i+2] == "R" && textproc.IsDigits(atoms[i]) && textproc.IsDigits(atoms[i+1]) {
			out = append(out, atoms[i]+" "+atoms[i+1])
			i += 2
			continue
		}
		out = append(out, "")
	}
	return out
}

var objStmHeadRE = regexp.MustCompile(`/Type\s*/ObjStm\b`)

// checkObjStms refuses a file with an object stream that ends inside a hex
// string: the library reads object streams with a lexer that loops forever
// on one. The streams are inflated here once (FlateDecode, the filter
// producers use for them) and scanned; streams that do not inflate are left
// to the library, which fails on them cleanly.
func checkObjStms(r io.ReaderAt, size int64) error {
	if size > maxRepairBytes {
		return nil
	}
	data := make([]byte, size)
	if n, _ := r.ReadAt(data, 0); int64(n) != size {
		return nil
	}
	if bytes.Contains(data, []byte("/Encrypt")) {
		return nil // encrypted streams cannot be inflated without the key
	}
	for _, loc := range objStmHeadRE.FindAllIndex(data, -1) {
		_, body, ok := streamData(data[loc[1]:])
		if !ok {
			continue
		}
		zr, err := zlib.NewReader(bytes.NewReader(body))
		if err != nil {
			continue
		}
		inflated, _ := io.ReadAll(io.LimitReader(zr, maxStreamBytes))
		if hexOpenAtEnd(inflated) {
			return fmt.Errorf("an object stream ends inside a hex string")
		}
	}
	return nil
}

// streamData splits the bytes from inside a stream object's dictionary
// on: the rest of the dictionary, and the stream's data up to
// "endstream" (the /Length may be an indirect object, or wrong).
func streamData(def []byte) (dict, body []byte, ok bool) {
	i := bytes.Index(def, []byte("stream"))
	if i < 0 || i > 4096 {
		return nil, nil, false
	}
	p := i + len("stream")
	if p < len(def) && def[p] == '\r' {
		p++
	}
	if p < len(def) && def[p] == '\n' {
		p++
	}
	body = def[p:]
	if j := bytes.Index(body, []byte("endstream")); j >= 0 {
		body = body[:j]
	}
	return def[:i], body, true
}

// hexOpenAtEnd reports whether data ends inside a hex string.
func hexOpenAtEnd(data []byte) bool {
	cut := stripInlineImages(data)
	return len(cut) < len(data) && data[len(cut)] == '<'
}
