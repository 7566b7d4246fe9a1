package ingest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// Text files are stored as UTF-8. A UTF-8 file is kept byte for byte
// except for a leading byte order mark, which is no text (it would open
// the title and the first sentence). A UTF-16 file, with a byte order mark
// or recognised by its zero bytes, is decoded to UTF-8; its offsets are
// then offsets into the decoded text, not into the file.

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// decodeText returns the text of a text file's content: UTF-8 without its
// byte order mark, or UTF-16 decoded. Content that is neither fails with
// ErrBinary or ErrInvalidUTF8, naming the offset of the first bad byte.
func decodeText(content []byte) (string, error) {
	switch {
	case bytes.HasPrefix(content, bomUTF8):
		content = content[len(bomUTF8):]
	case bytes.HasPrefix(content, bomUTF16LE):
		return decodeUTF16(content[2:], binary.LittleEndian, 2)
	case bytes.HasPrefix(content, bomUTF16BE):
		return decodeUTF16(content[2:], binary.BigEndian, 2)
	default:
		if order, ok := sniffUTF16(content); ok {
			return decodeUTF16(content, order, 0)
		}
	}
	if err := checkText(content); err != nil {
		return "", err
	}
	return string(content), nil
}

// sniffUTF16 recognises UTF-16 without a byte order mark by its zero
// bytes: text that is mostly Latin script has a zero in every other byte,
// on one side only (the high byte of each code unit), which UTF-8 text
// never has.
func sniffUTF16(b []byte) (binary.ByteOrder, bool) {
	b = b[:min(len(b), 4096)&^1]
	if len(b) < 4 {
		return nil, false
	}
	var zeros [2]int
	for i, c := range b {
		if c == 0 {
			zeros[i&1]++
		}
	}
	half := len(b) / 2
	switch {
	case zeros[1]*10 >= half*4 && zeros[0]*20 < half:
		return binary.LittleEndian, true // "a\x00b\x00"
	case zeros[0]*10 >= half*4 && zeros[1]*20 < half:
		return binary.BigEndian, true
	}
	return nil, false
}

// decodeUTF16 decodes UTF-16 code units in order; skip is the length of a
// byte order mark already cut off, for offsets in messages.
func decodeUTF16(b []byte, order binary.ByteOrder, skip int) (string, error) {
	if len(b)%2 != 0 {
		return "", fmt.Errorf("%w: it looks like UTF-16 but has an odd number of bytes (cut short?)", ErrInvalidUTF8)
	}
	units := make([]uint16, len(b)/2)
	for i := range units {
		units[i] = order.Uint16(b[2*i:])
		if units[i] == 0 {
			return "", fmt.Errorf("%w (a NUL character at offset %d of this UTF-16 file)", ErrBinary, skip+2*i)
		}
	}
	for i := 0; i < len(units); i++ {
		switch u := units[i]; {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] < 0xE000:
			i++ // a valid pair
		case utf16.IsSurrogate(rune(u)):
			return "", fmt.Errorf("%w: a broken UTF-16 surrogate at offset %d", ErrInvalidUTF8, skip+2*i)
		}
	}
	return string(utf16.Decode(units)), nil
}
