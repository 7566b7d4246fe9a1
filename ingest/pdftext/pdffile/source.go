package pdffile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// maxInMemory bounds the files held whole in memory: to rebuild their
// cross-reference table, decrypt them, flatten them, or say at which byte
// damage is. Larger files are read only through the library.
const maxInMemory = 200 << 20

// A source is a file's bytes as the library is shown them: read through a
// block cache, with the header and the tail the library insists on, and
// patched where a loop in the cross-reference chain is cut.
type source struct {
	r    io.ReaderAt
	size int64
	// content is the whole file, read once on first use; nil for files
	// larger than maxInMemory.
	content func() []byte
}

func newSource(r io.ReaderAt, size int64) *source {
	r, size = fixEnvelope(cachedReader(r, size), size)
	if b, ok := r.(Bytes); ok && size <= int64(len(b)) {
		// read in place: a copy would be a second file in memory for
		// the whole extraction
		s := &source{r: b, size: size}
		s.content = func() []byte {
			if size > maxInMemory {
				return nil // as for a file read from elsewhere
			}
			return b[:size]
		}
		return s
	}
	return sourceOf(r, size)
}

// Bytes is a PDF file held in memory. Open and Rebuild read it in place,
// where any other io.ReaderAt is copied into memory when the whole file
// is needed (to check and flatten its object streams, rebuild its
// cross-reference table or decrypt it). The bytes must not change while
// the File is in use.
type Bytes []byte

// ReadAt implements io.ReaderAt.
func (b Bytes) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("pdffile: negative offset")
	}
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func sourceOf(r io.ReaderAt, size int64) *source {
	s := &source{r: r, size: size}
	s.content = sync.OnceValue(func() []byte {
		if s.size > maxInMemory {
			return nil
		}
		data := make([]byte, s.size)
		n, _ := s.r.ReadAt(data, 0)
		return data[:n]
	})
	return s
}

// bytesSource is a source over bytes made in memory (a rebuilt or
// decrypted copy of the file).
func bytesSource(data []byte) *source {
	s := &source{r: bytes.NewReader(data), size: int64(len(data))}
	s.content = func() []byte { return data }
	return s
}

// window returns up to n bytes of the file from off, and whether they run
// to its end.
func (s *source) window(off int64, n int) ([]byte, bool) {
	if off < 0 || off >= s.size {
		return nil, true
	}
	n = int(min(int64(n), s.size-off))
	if data := s.content(); data != nil && int64(len(data)) == s.size {
		return data[off : off+int64(n)], off+int64(n) == s.size
	}
	buf := make([]byte, n)
	m, _ := s.r.ReadAt(buf, off)
	return buf[:m], off+int64(m) == s.size
}

// blank returns the source with the bytes in [from, to) read as spaces.
func (s *source) blank(from, to int64) *source {
	if from < 0 || to > s.size || from >= to {
		return s
	}
	return sourceOf(overlay{s.r, from, bytes.Repeat([]byte{' '}, int(to-from))}, s.size)
}

// fixEnvelope lets the library read files it would refuse for their
// envelope alone: it accepts only a "%PDF-1.0" to "%PDF-1.7" header ended
// by a newline (not PDF 2.0, nor a header after a mail or download
// wrapper), and wants "%%EOF" in the last 100 bytes.
func fixEnvelope(r io.ReaderAt, size int64) (io.ReaderAt, int64) {
	head := make([]byte, min(size, 1024))
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	var header []byte
	switch i := bytes.Index(head, []byte("%PDF-")); {
	case i == 0 && n >= 9 && (head[5] != '1' || head[7] < '0' || head[7] > '7' || head[8] != '\n' && head[8] != '\r'):
		header = []byte("%PDF-1.7\n")
	case i > 0: // bytes before the header
		header = []byte("%PDF-1.7\n")
	}
	// the file ends with its last %%EOF
	const tail = 4096
	off := max(0, size-tail)
	buf := make([]byte, size-off)
	m, _ := r.ReadAt(buf, off)
	if i := bytes.LastIndex(buf[:m], []byte("%%EOF")); i >= 0 {
		size = off + int64(i) + 5
	}
	if header == nil {
		return r, size
	}
	return overlay{r, 0, header}, size
}

// overlay reads r with patch in place of its bytes from at.
type overlay struct {
	r     io.ReaderAt
	at    int64
	patch []byte
}

func (o overlay) ReadAt(b []byte, off int64) (int, error) {
	n, err := o.r.ReadAt(b, off)
	for i := 0; i < n; i++ {
		if k := off + int64(i) - o.at; k >= 0 && k < int64(len(o.patch)) {
			b[i] = o.patch[k]
		}
	}
	return n, err
}

// joined reads the file a followed by the bytes b, as one file: a copy
// of the file with objects appended, without copying the file.
type joined struct {
	a     io.ReaderAt
	asize int64
	b     []byte
}

func (j joined) size() int64 { return j.asize + int64(len(j.b)) }

func (j joined) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.EOF
	}
	n := 0
	if off < j.asize {
		m, err := j.a.ReadAt(p[:min(int64(len(p)), j.asize-off)], off)
		n = m
		if err != nil && err != io.EOF {
			return n, err
		}
	}
	if n < len(p) {
		if o := off + int64(n) - j.asize; o >= 0 && o < int64(len(j.b)) {
			n += copy(p[n:], j.b[o:])
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// A guard is the reader the library is given. The library cannot be
// cancelled and some of its loops have no end of their own; every read it
// makes from the file passes here, so a read after ctx is done panics
// with ctx's error, which unwinds the library (NewReader returns it as
// its error; elsewhere the caller's recover finds it, see Fault). While a
// file is opened, reads are also counted: the library reads each
// cross-reference section once, so reading much more than the file means
// a chain that does not end, and the read panics with a *Damage saying so.
type guard struct {
	r       io.ReaderAt
	ctx     context.Context
	opening atomic.Bool
	read    atomic.Int64
	limit   int64
}

func newGuard(ctx context.Context, r io.ReaderAt, size int64) *guard {
	g := &guard{r: r, ctx: ctx, limit: 4*size + 4<<20}
	g.opening.Store(true)
	return g
}

// opened ends the opening: reads are no longer counted.
func (g *guard) opened() { g.opening.Store(false) }

func (g *guard) ReadAt(p []byte, off int64) (int, error) {
	if err := g.ctx.Err(); err != nil {
		panic(err)
	}
	if g.opening.Load() && g.read.Add(int64(len(p))) > g.limit {
		panic(&Damage{At: -1, What: "its cross-reference sections never end"})
	}
	return g.r.ReadAt(p, off)
}
