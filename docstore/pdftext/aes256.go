package pdftext

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"io"
	"regexp"
	"strconv"
)

// The library decrypts only RC4 and AES-128 files. Files encrypted with
// AES-256 (PDF 2.0, revision 6, and the Adobe extension's revision 5) and
// an empty user password — what "restrict editing" produces — can be read
// by everyone; decryptAES256 decrypts such a file in place: every string
// and stream is replaced by its plain text padded with spaces to the same
// length, so all offsets stay valid, and /Encrypt is blanked from the
// trailer.

var (
	encryptRefRE = regexp.MustCompile(`/Encrypt\s+(\d+)\s+(\d+)\s+R`)
	encNumRE     = regexp.MustCompile(`/(V|R|Length)\s+(\d+)`)
	lengthRE     = regexp.MustCompile(`/Length\s+(\d+)(\s+\d+\s+R)?`)
)

var errNotAES256 = errors.New("not an AES-256 file")

// decryptAES256 returns a decrypted copy of data, or errNotAES256 when the
// file uses another method, or an error when it needs a password.
func decryptAES256(r io.ReaderAt, size int64) (io.ReaderAt, error) {
	if size > maxRepairBytes {
		return nil, errNotAES256
	}
	data := make([]byte, size)
	if n, _ := r.ReadAt(data, 0); int64(n) != size {
		return nil, errNotAES256
	}
	refs := encryptRefRE.FindAllSubmatchIndex(data, -1)
	if len(refs) == 0 {
		return nil, errNotAES256
	}
	ref := refs[len(refs)-1]
	encID := string(data[ref[2]:ref[3]])
	body, _, ok := objectBody(data, encID)
	if !ok {
		return nil, errNotAES256
	}
	nums := map[string]int{}
	for _, m := range encNumRE.FindAllSubmatch(body, -1) {
		nums[string(m[1])], _ = strconv.Atoi(string(m[2]))
	}
	if nums["V"] != 5 || (nums["R"] != 5 && nums["R"] != 6) {
		return nil, errNotAES256
	}
	u, ue := dictString(body, "U"), dictString(body, "UE")
	if len(u) < 48 || len(ue) < 32 {
		return nil, fmt.Errorf("the encryption dictionary is damaged")
	}
	hashFn := func(salt []byte) []byte {
		if nums["R"] == 5 {
			h := sha256.Sum256(salt)
			return h[:]
		}
		return hash2B(nil, salt, nil)
	}
	if check := hashFn(u[32:40]); !bytes.Equal(check, u[:32]) {
		return nil, pdfPasswordError{}
	}
	ikey := hashFn(u[40:48])
	block, err := aes.NewCipher(ikey[:32])
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	cipher.NewCBCDecrypter(block, make([]byte, 16)).CryptBlocks(key, ue[:32])
	fileCipher, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(data)
	for _, m := range objDefRE.FindAllSubmatchIndex(data, -1) {
		id := string(data[m[2]:m[3]])
		if id == encID {
			continue
		}
		decryptObject(out, m[1], fileCipher)
	}
	// blank the /Encrypt entries so that the library reads plain text
	for _, ref := range refs {
		for i := ref[0]; i < ref[1]; i++ {
			out[i] = ' '
		}
	}
	return bytes.NewReader(out), nil
}

type pdfPasswordError struct{}

func (pdfPasswordError) Error() string { return "encrypted PDF: invalid password" }

// hash2B is Algorithm 2.B of ISO 32000-2 (revision 6) for password pw.
func hash2B(pw, salt, udata []byte) []byte {
	h := sha256.New()
	h.Write(pw)
	h.Write(salt)
	h.Write(udata)
	k := h.Sum(nil)
	for round := 0; ; round++ {
		k1 := bytes.Repeat(append(append(append([]byte(nil), pw...), k...), udata...), 64)
		block, _ := aes.NewCipher(k[:16])
		e := make([]byte, len(k1))
		cipher.NewCBCEncrypter(block, k[16:32]).CryptBlocks(e, k1)
		sum := 0
		for _, b := range e[:16] {
			sum += int(b)
		}
		var hf hash.Hash
		switch sum % 3 {
		case 0:
			hf = sha256.New()
		case 1:
			hf = sha512.New384()
		default:
			hf = sha512.New()
		}
		hf.Write(e)
		k = hf.Sum(nil)
		if round >= 63 && int(e[len(e)-1]) <= round-31 {
			break
		}
		if round > 2000 {
			break
		}
	}
	return k[:32]
}

// objectBody returns the text of object id (its last definition) from
// "obj" to "endobj", and its offset.
func objectBody(data []byte, id string) ([]byte, int, bool) {
	re := regexp.MustCompile(`(?:^|[^0-9])` + regexp.QuoteMeta(id) + `\s+\d+\s+obj\b`)
	ms := re.FindAllIndex(data, -1)
	if len(ms) == 0 {
		return nil, 0, false
	}
	start := ms[len(ms)-1][1]
	end := bytes.Index(data[start:], []byte("endobj"))
	if end < 0 {
		end = min(len(data)-start, 4096)
	}
	return data[start : start+end], start, true
}

// dictString returns the value of string entry key of a dictionary's text.
func dictString(dict []byte, key string) []byte {
	re := regexp.MustCompile(`/` + key + `\s*([(<])`)
	m := re.FindSubmatchIndex(dict)
	if m == nil {
		return nil
	}
	s, _, ok := readString(dict, m[2])
	if !ok {
		return nil
	}
	return s
}

// readString parses the literal or hex string at data[i], returning its
// bytes and the index after it.
func readString(data []byte, i int) ([]byte, int, bool) {
	if data[i] == '<' {
		j := bytes.IndexByte(data[i:], '>')
		if j < 0 {
			return nil, 0, false
		}
		var out []byte
		var hi byte
		half := false
		for _, c := range data[i+1 : i+j] {
			v := unhexByte(c)
			if v < 0 {
				continue
			}
			if half {
				out = append(out, hi<<4|byte(v))
			} else {
				hi = byte(v)
			}
			half = !half
		}
		if half {
			out = append(out, hi<<4)
		}
		return out, i + j + 1, true
	}
	var out []byte
	depth := 0
	for k := i; k < len(data); k++ {
		c := data[k]
		switch {
		case c == '\\' && k+1 < len(data):
			k++
			switch e := data[k]; e {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case '\r':
				if k+1 < len(data) && data[k+1] == '\n' {
					k++
				}
			case '\n':
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for n := 0; n < 2 && k+1 < len(data) && data[k+1] >= '0' && data[k+1] <= '7'; n++ {
						k++
						v = v*8 + int(data[k]-'0')
					}
					out = append(out, byte(v))
				} else {
					out = append(out, e)
				}
			}
		case c == '(':
			if depth > 0 {
				out = append(out, c)
			}
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return out, k + 1, true
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return nil, 0, false
}

func unhexByte(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// aesDecrypt decrypts IV-prefixed AES-CBC data with PKCS#7 padding.
func aesDecrypt(b cipher.Block, data []byte) ([]byte, bool) {
	if len(data) < 32 || len(data)%16 != 0 {
		return nil, false
	}
	out := make([]byte, len(data)-16)
	cipher.NewCBCDecrypter(b, data[:16]).CryptBlocks(out, data[16:])
	pad := int(out[len(out)-1])
	if pad < 1 || pad > 16 || pad > len(out) {
		return out, true
	}
	return out[:len(out)-pad], true
}

// decryptObject decrypts in place the strings and the stream of the object
// whose body starts at data[at], padding with spaces.
func decryptObject(data []byte, at int, b cipher.Block) {
	end := bytes.Index(data[at:], []byte("endobj"))
	if end < 0 {
		end = len(data) - at
	}
	obj := data[at : at+end]
	dictEnd := len(obj)
	streamAt := -1
	if k := bytes.Index(obj, []byte("stream")); k >= 0 && (k+6 < len(obj)) && (obj[k+6] == '\r' || obj[k+6] == '\n') {
		dictEnd, streamAt = k, k+6
	}
	if bytes.Contains(obj[:dictEnd], []byte("/XRef")) {
		return // cross-reference streams are not encrypted
	}
	// strings in the dictionary part
	for i := 0; i < dictEnd; i++ {
		switch c := obj[i]; c {
		case '%':
			for i < dictEnd && obj[i] != '\n' && obj[i] != '\r' {
				i++
			}
		case '/':
			for i+1 < dictEnd && !isWS(obj[i+1]) && !bytes.ContainsRune([]byte("/<>[]()%{}"), rune(obj[i+1])) {
				i++
			}
		case '<':
			if i+1 < dictEnd && obj[i+1] == '<' {
				i++
				continue
			}
			fallthrough
		case '(':
			s, next, ok := readString(obj[:dictEnd], i)
			if !ok {
				return
			}
			if plain, ok := aesDecrypt(b, s); ok {
				writeLiteral(obj[i:next], plain)
			}
			i = next - 1
		}
	}
	if streamAt < 0 {
		return
	}
	p := streamAt
	if obj[p] == '\r' {
		p++
	}
	if p < len(obj) && obj[p] == '\n' {
		p++
	}
	n := -1
	if m := lengthRE.FindSubmatch(obj[:dictEnd]); m != nil && m[2] == nil {
		n, _ = strconv.Atoi(string(m[1]))
	}
	if n < 0 || p+n > len(data)-at {
		k := bytes.LastIndex(obj, []byte("endstream"))
		if k < p {
			return
		}
		n = k - p
		for n > 0 && (obj[p+n-1] == '\n' || obj[p+n-1] == '\r') {
			n--
		}
		n -= n % 16
	}
	region := data[at+p : at+p+n]
	if plain, ok := aesDecrypt(b, region); ok {
		copy(region, plain)
		for i := len(plain); i < len(region); i++ {
			region[i] = ' '
		}
	}
}

// writeLiteral overwrites the string token dst with plain as a literal
// string padded with spaces; when it does not fit, dst is left as it was.
func writeLiteral(dst, plain []byte) {
	lit := []byte{'('}
	for _, c := range plain {
		switch c {
		case '(', ')', '\\':
			lit = append(lit, '\\', c)
		case '\r':
			lit = append(lit, '\\', 'r')
		default:
			lit = append(lit, c)
		}
	}
	lit = append(lit, ')')
	if len(lit) > len(dst) {
		return
	}
	copy(dst, lit)
	for i := len(lit); i < len(dst); i++ {
		dst[i] = ' '
	}
}
