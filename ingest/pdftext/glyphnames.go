package pdftext

//go:generate go run mktables.go

import (
	"strconv"
	"strings"
	"sync"
)

var aglMap = sync.OnceValue(func() map[string]rune {
	m := make(map[string]rune, 4400)
	for line := range strings.SplitSeq(aglData, "\n") {
		name, hex, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if v, err := strconv.ParseUint(hex, 16, 32); err == nil {
			m[name] = rune(v)
		}
	}
	return m
})

// glyphNameText maps a glyph name to text following the Adobe Glyph List
// specification: AGL names, uniXXXX sequences, uXXXX[XX], ligature names
// joined by "_", and suffixes after "." dropped. Unknown names map to "".
func glyphNameText(name string) string {
	if name == "" || name == ".notdef" {
		return ""
	}
	if r, ok := aglMap()[name]; ok {
		return string(r)
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	} else if i == 0 {
		return ""
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for part := range strings.SplitSeq(name, "_") {
			b.WriteString(glyphComponent(part))
		}
		return b.String()
	}
	return glyphComponent(name)
}

func glyphComponent(name string) string {
	if r, ok := aglMap()[name]; ok {
		return string(r)
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var b strings.Builder
		for i := 3; i < len(name); i += 4 {
			v, err := strconv.ParseUint(name[i:i+4], 16, 32)
			if err != nil || (v >= 0xD800 && v <= 0xDFFF) {
				return ""
			}
			b.WriteRune(rune(v))
		}
		return b.String()
	}
	if strings.HasPrefix(name, "u") && len(name) >= 5 && len(name) <= 7 {
		v, err := strconv.ParseUint(name[1:], 16, 32)
		if err == nil && v <= 0x10FFFF && (v < 0xD800 || v > 0xDFFF) {
			return string(rune(v))
		}
	}
	return ""
}
