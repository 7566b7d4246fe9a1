package doctest

import (
	"bytes"
	"compress/zlib"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// RawPDF writes a PDF object by object, for tests that need a file's
// structure just so: cross-reference sections chained by /Prev,
// cross-reference streams, objects packed in object streams, encryption,
// damage in chosen places. Nothing is checked: it writes what it is told.
type RawPDF struct {
	b      bytes.Buffer
	offs   map[int]int    // object → offset of its latest plain definition
	packed map[int][2]int // object → its object stream and index there
	crypt  *rawCrypt
}

// NewRawPDF starts a file with the header "%PDF-version".
func NewRawPDF(version string) *RawPDF {
	p := &RawPDF{offs: map[int]int{}, packed: map[int][2]int{}}
	fmt.Fprintf(&p.b, "%%PDF-%s\n%%\xe2\xe3\xcf\xd3\n", version)
	return p
}

// Len is the size of the file so far: the offset of what is written next.
func (p *RawPDF) Len() int { return p.b.Len() }

// Object writes object id with body.
func (p *RawPDF) Object(id int, body string) {
	p.offs[id] = p.b.Len()
	fmt.Fprintf(&p.b, "%d 0 obj\n%s\nendobj\n", id, body)
}

// Stream writes stream object id: dict (without /Length) and data, which
// is encrypted when the file is (Encrypt).
func (p *RawPDF) Stream(id int, dict string, data []byte) {
	if p.crypt != nil {
		data = p.crypt.encrypt(id, data)
	}
	p.Object(id, fmt.Sprintf("<<%s /Length %d>>\nstream\n%s\nendstream", dict, len(data), data))
}

// Flate compresses data as a FlateDecode stream holds it.
func Flate(data []byte) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(data) // writing to memory cannot fail
	w.Close()
	return z.Bytes()
}

// ObjStm writes object stream id (Flate-compressed) holding objects with
// the given numbers and bodies; tail is appended after the last object,
// and n, if not 0, is written as /N instead of the count.
func (p *RawPDF) ObjStm(id int, ids []int, bodies []string, tail string, n int) {
	var head, objs strings.Builder
	for i, o := range ids {
		fmt.Fprintf(&head, "%d %d ", o, objs.Len())
		objs.WriteString(bodies[i] + "\n")
		p.packed[o] = [2]int{id, i}
	}
	objs.WriteString(tail)
	if n == 0 {
		n = len(ids)
	}
	p.Stream(id, fmt.Sprintf("/Type /ObjStm /N %d /First %d /Filter /FlateDecode", n, head.Len()), Flate([]byte(head.String()+objs.String())))
}

// Table writes a cross-reference table listing every object written so
// far, then a trailer with entries (without /Size, which it adds), and
// returns the table's offset.
func (p *RawPDF) Table(entries string) int {
	at := p.b.Len()
	n := p.maxID() + 1
	fmt.Fprintf(&p.b, "xref\n0 %d\n0000000000 65535 f \n", n)
	for id := 1; id < n; id++ {
		if off, ok := p.offs[id]; ok {
			fmt.Fprintf(&p.b, "%010d 00000 n \n", off)
		} else {
			p.b.WriteString("0000000000 00000 f \n")
		}
	}
	fmt.Fprintf(&p.b, "trailer\n<< /Size %d %s >>\n", n, entries)
	return at
}

// XrefStream writes cross-reference stream object id listing every
// object written so far (packed ones too, and itself), with entries in
// its dictionary (without /Size, /W and /Length, which it adds), and
// returns its offset.
func (p *RawPDF) XrefStream(id int, entries string) int {
	at := p.b.Len()
	p.offs[id] = at
	n := p.maxID() + 1
	var tbl bytes.Buffer
	for x := range n {
		var row [7]byte
		if off, ok := p.offs[x]; ok {
			row[0] = 1
			binary.BigEndian.PutUint32(row[1:], uint32(off))
		} else if s, ok := p.packed[x]; ok {
			row[0] = 2
			binary.BigEndian.PutUint32(row[1:], uint32(s[0]))
			binary.BigEndian.PutUint16(row[5:], uint16(s[1]))
		}
		tbl.Write(row[:])
	}
	fmt.Fprintf(&p.b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] %s /Length %d >>\nstream\n", id, n, entries, tbl.Len())
	p.b.Write(tbl.Bytes())
	p.b.WriteString("\nendstream\nendobj\n")
	return at
}

// End writes "startxref" naming the section at offset at and "%%EOF",
// and returns the file.
func (p *RawPDF) End(at int) []byte {
	fmt.Fprintf(&p.b, "startxref\n%d\n%%%%EOF\n", at)
	return p.b.Bytes()
}

func (p *RawPDF) maxID() int {
	ids := make([]int, 0, len(p.offs)+len(p.packed))
	for id := range p.offs {
		ids = append(ids, id)
	}
	for id := range p.packed {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	if len(ids) == 0 {
		return 0
	}
	return ids[len(ids)-1]
}

// Encrypt makes the streams written from now on encrypted with the
// standard security handler and an empty user password: RC4 with a
// 128-bit key (revision 3), or AES-128 (revision 4, AESV2). It writes
// the encryption dictionary as object id and returns the trailer entries
// that name it ("/Encrypt … /ID […]").
func (p *RawPDF) Encrypt(id int, aesV2 bool) string {
	c := &rawCrypt{aes: aesV2}
	o := bytes.Repeat([]byte{0x4f}, 32) // any owner entry: an empty user password opens the file
	fileID := []byte("citelens-test-id")
	perms := int32(-4)
	// Algorithm 2: the file key from the padded empty password
	h := md5.New()
	h.Write(passwordPad)
	h.Write(o)
	binary.Write(h, binary.LittleEndian, perms)
	h.Write(fileID)
	key := h.Sum(nil)
	for range 50 {
		s := md5.Sum(key[:16])
		key = s[:]
	}
	c.key = key[:16]
	// Algorithm 5: U for revisions 3 and 4
	h = md5.New()
	h.Write(passwordPad)
	h.Write(fileID)
	u := h.Sum(nil)
	for i := range 20 {
		k := bytes.Clone(c.key)
		for j := range k {
			k[j] ^= byte(i)
		}
		r, _ := rc4.NewCipher(k)
		r.XORKeyStream(u, u)
	}
	u = append(u, make([]byte, 16)...)
	dict := fmt.Sprintf("<< /Filter /Standard /V 2 /R 3 /Length 128 /O <%x> /U <%x> /P %d >>", o, u, perms)
	if aesV2 {
		dict = fmt.Sprintf("<< /Filter /Standard /V 4 /R 4 /Length 128 /CF << /StdCF << /CFM /AESV2 /AuthEvent /DocOpen /Length 16 >> >> /StmF /StdCF /StrF /StdCF /O <%x> /U <%x> /P %d >>", o, u, perms)
	}
	p.Object(id, dict)
	p.crypt = c
	return fmt.Sprintf("/Encrypt %d 0 R /ID [<%x> <%x>]", id, fileID, fileID)
}

var passwordPad = []byte{
	0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
}

type rawCrypt struct {
	key []byte
	aes bool
}

// encrypt encrypts the data of object id (generation 0).
func (c *rawCrypt) encrypt(id int, data []byte) []byte {
	h := md5.New()
	h.Write(c.key)
	h.Write([]byte{byte(id), byte(id >> 8), byte(id >> 16), 0, 0})
	if c.aes {
		h.Write([]byte("sAlT"))
	}
	k := h.Sum(nil)
	if !c.aes {
		out := make([]byte, len(data))
		r, _ := rc4.NewCipher(k)
		r.XORKeyStream(out, data)
		return out
	}
	pad := 16 - len(data)%16
	plain := append(bytes.Clone(data), bytes.Repeat([]byte{byte(pad)}, pad)...)
	iv := bytes.Repeat([]byte{7}, 16)
	out := append(bytes.Clone(iv), make([]byte, len(plain))...)
	block, _ := aes.NewCipher(k)
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out[16:], plain)
	return out
}

// ObjStmPDF returns a one-page PDF showing text, whose page tree, page
// and font are packed in an object stream listed by a cross-reference
// stream. With stale not "", the file also holds a plain definition of
// the page, which the cross-reference stream does not use, showing stale.
func ObjStmPDF(text, stale string) []byte {
	p := NewRawPDF("1.5")
	p.Object(1, "<< /Type /Catalog /Pages 2 0 R >>")
	p.Stream(5, "", fmt.Appendf(nil, "BT /F1 10 Tf 72 700 Td (%s) Tj ET", text))
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents %d 0 R >>"
	if stale != "" {
		p.Stream(7, "", fmt.Appendf(nil, "BT /F1 10 Tf 72 700 Td (%s) Tj ET", stale))
		p.Object(3, fmt.Sprintf(page, 7))
		delete(p.offs, 3) // defined, but not listed
	}
	p.ObjStm(6, []int{2, 3, 4}, []string{"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", fmt.Sprintf(page, 5), hostileFont}, "", 0)
	return p.End(p.XrefStream(8, "/Root 1 0 R"))
}
