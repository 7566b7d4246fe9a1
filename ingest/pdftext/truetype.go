package pdftext

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// trueTypeGlyphText reads the Unicode cmap of an embedded TrueType program
// and returns it inverted: glyph id → text. It is how a composite font
// with no ToUnicode map still yields text. Damaged or absent tables give
// nil.
func trueTypeGlyphText(prog []byte) map[uint16]string {
	be := binary.BigEndian
	if len(prog) < 12 {
		return nil
	}
	n := int(be.Uint16(prog[4:]))
	var cmap []byte
	for i := 0; i < n; i++ {
		rec := 12 + 16*i
		if rec+16 > len(prog) {
			return nil
		}
		if string(prog[rec:rec+4]) == "cmap" {
			off, ln := int(be.Uint32(prog[rec+8:])), int(be.Uint32(prog[rec+12:]))
			if off < 0 || ln < 4 || off > len(prog) || off+ln > len(prog) || off+ln < off {
				return nil
			}
			cmap = prog[off : off+ln]
		}
	}
	if len(cmap) < 4 {
		return nil
	}
	// pick the best Unicode subtable: full repertoire first, then BMP
	best, bestRank := -1, 0
	for i := 0; i < int(be.Uint16(cmap[2:])); i++ {
		rec := 4 + 8*i
		if rec+8 > len(cmap) {
			break
		}
		pid, eid, off := be.Uint16(cmap[rec:]), be.Uint16(cmap[rec+2:]), int(be.Uint32(cmap[rec+4:]))
		rank := 0
		switch {
		case pid == 3 && eid == 10 || pid == 0 && (eid == 4 || eid == 6):
			rank = 3
		case pid == 3 && eid == 1 || pid == 0:
			rank = 2
		}
		if rank > bestRank && off < len(cmap) {
			best, bestRank = off, rank
		}
	}
	if best < 0 {
		return nil
	}
	out := map[uint16]string{}
	add := func(r rune, gid uint32) {
		if gid == 0 || gid > 0xFFFF || !utf8.ValidRune(r) || r < 0x20 {
			return
		}
		if _, ok := out[uint16(gid)]; !ok && len(out) < maxCMapEntries {
			out[uint16(gid)] = string(r)
		}
	}
	t := cmap[best:]
	if len(t) < 4 {
		return nil
	}
	switch be.Uint16(t) {
	case 4:
		if len(t) < 14 {
			return nil
		}
		segs := int(be.Uint16(t[6:])) / 2
		if 16+8*segs > len(t) {
			return nil
		}
		ends, starts := t[14:], t[16+2*segs:]
		deltas, ranges := t[16+4*segs:], t[16+6*segs:]
		for s := 0; s < segs; s++ {
			end, start := uint32(be.Uint16(ends[2*s:])), uint32(be.Uint16(starts[2*s:]))
			delta, ro := be.Uint16(deltas[2*s:]), int(be.Uint16(ranges[2*s:]))
			for c := start; c <= end && c != 0xFFFF; c++ {
				var gid uint16
				if ro == 0 {
					gid = uint16(c) + delta
				} else {
					at := 16 + 6*segs + 2*s + ro + 2*int(c-start)
					if at+2 > len(t) {
						break
					}
					if gid = be.Uint16(t[at:]); gid != 0 {
						gid += delta
					}
				}
				add(rune(c), uint32(gid))
			}
		}
	case 12:
		if len(t) < 16 {
			return nil
		}
		groups := int(be.Uint32(t[12:]))
		for g := 0; g < groups && 16+12*g+12 <= len(t); g++ {
			p := t[16+12*g:]
			lo, hi, gid := be.Uint32(p), be.Uint32(p[4:]), be.Uint32(p[8:])
			for c := lo; c <= hi && c-lo < 0x10000 && c <= 0x10FFFF; c++ {
				add(rune(c), gid+(c-lo))
			}
		}
	default:
		return nil
	}
	return out
}

// cidGlyphText sets up text by glyph for a CIDFontType2 font without a
// ToUnicode map, from its embedded TrueType program and CIDToGIDMap.
func cidGlyphText(f *font, desc pdf.Value) {
	if desc.Key("Subtype").Name() != "CIDFontType2" {
		return
	}
	fd := desc.Key("FontDescriptor")
	if fd.Key("FontFile2").Kind() != pdf.Stream {
		return
	}
	f.gidText = trueTypeGlyphText(f.stream(fd, "FontFile2", maxStreamBytes/4))
	if m := desc.Key("CIDToGIDMap"); m.Kind() == pdf.Stream {
		f.cidToGID = f.stream(desc, "CIDToGIDMap", 1<<17)
	}
}
