package pdffile

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"hash"
)

// The library decrypts only RC4 and AES-128 files. Files encrypted with
// AES-256 (PDF 2.0, revision 6, and the Adobe extension's revision 5) and
// an empty user password — what "restrict editing" produces — can be read
// by everyone; decryptAES256 decrypts such a file in place: every string
// and stream is replaced by its plain text padded with spaces to the same
// length, so all offsets stay valid, and /Encrypt is blanked from the
// trailers.

var (
	errNotAES256 = errors.New("not an AES-256 file")
	// errPassword: the file needs a user password.
	errPassword = errors.New("encrypted PDF: invalid password")
)

// decryptAES256 returns a decrypted copy of data, whose cross-reference
// chain is c (nil if it could not be read), or errNotAES256 when the file
// uses another method, or errPassword when it needs a password, or ctx's
// error.
func decryptAES256(ctx context.Context, data []byte, c *xrefChain) ([]byte, error) {
	var enc any
	if c != nil {
		enc = c.trailers[0].get("Encrypt")
	} else if r := lastRef(data, "Encrypt"); r != "" {
		enc = parseRef(r)
	}
	encID := uint64(0)
	if r, ok := enc.(ref); ok {
		encID = uint64(r.id)
		body, _, ok := objectBody(data, encID)
		if !ok {
			return nil, errNotAES256
		}
		enc = dictOf(body)
	}
	d, ok := enc.(*dict)
	if !ok || d == nil {
		return nil, errNotAES256
	}
	v, _ := d.int("V")
	rev, _ := d.int("R")
	if v != 5 || (rev != 5 && rev != 6) {
		return nil, errNotAES256
	}
	u, _ := d.get("U").(string)
	ue, _ := d.get("UE").(string)
	if len(u) < 48 || len(ue) < 32 {
		return nil, damage(-1, "its encryption dictionary is damaged")
	}
	hashFn := func(salt []byte) []byte {
		if rev == 5 {
			h := sha256.Sum256(salt)
			return h[:]
		}
		return hash2B(nil, salt, nil)
	}
	if check := hashFn([]byte(u[32:40])); !bytes.Equal(check, []byte(u[:32])) {
		return nil, errPassword
	}
	ikey := hashFn([]byte(u[40:48]))
	block, err := aes.NewCipher(ikey[:32])
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	cipher.NewCBCDecrypter(block, make([]byte, 16)).CryptBlocks(key, []byte(ue[:32]))
	fileCipher, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(data)
	n := 0
	eachObject(data, func(_ int, id, _ uint64, k int) bool {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return false
		}
		if id != encID {
			decryptObject(out, k+3, fileCipher)
		}
		return true
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	blankEncrypt(out, c)
	return out, nil
}

// parseRef reads "N G R".
func parseRef(s string) ref {
	v, _, _ := newLexer([]byte(s), 0, true, true).object(0)
	r, _ := v.(ref)
	return r
}

// blankEncrypt blanks the /Encrypt entries of the trailers, so that the
// library reads the decrypted file as plain.
func blankEncrypt(data []byte, c *xrefChain) {
	if c != nil {
		for _, t := range c.trailers {
			if span, ok := t.spans["Encrypt"]; ok {
				copy(data[span[0]:span[1]], bytes.Repeat([]byte{' '}, int(span[1]-span[0])))
			}
		}
		return
	}
	for at := 0; ; {
		i := bytes.Index(data[at:], []byte("/Encrypt"))
		if i < 0 {
			return
		}
		i += at
		at = i + 1
		l := newLexer(data[i:min(len(data), i+64)], int64(i), i+64 >= len(data), false)
		if t, err := l.token(); err != nil || t.s != "Encrypt" {
			continue
		}
		if v, end, err := l.object(0); err == nil {
			if _, ok := v.(ref); ok {
				copy(data[i:end], bytes.Repeat([]byte{' '}, int(end)-i))
			}
		}
	}
}

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
	d := dictOf(obj[:dictEnd])
	if d.name("Type") == "XRef" {
		return // cross-reference streams are not encrypted
	}
	// the strings of the object's text before its stream
	l := newLexer(obj[:dictEnd], int64(at), true, true)
	for {
		t, err := l.token()
		if err != nil || t.kind == tokEOF {
			break
		}
		if t.kind != tokString {
			continue
		}
		if plain, ok := aesDecrypt(b, []byte(t.s)); ok {
			writeLiteral(data[t.at:t.end], plain)
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
	if length, ok := d.int("Length"); ok && length <= int64(len(data)) {
		n = int(length)
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
