package pdffile

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// The library reads a file in many small pieces, each object through a
// fresh 4 KB buffer, and object streams again from their start for every
// object in them. On a file that means hundreds of thousands of small
// reads; blockCache turns them into one read per block, keeping at most
// maxCachedBlocks blocks (64 MB) so memory stays bounded for huge files.
const (
	cacheBlockSize  = 256 << 10
	maxCachedBlocks = 256
)

type blockCache struct {
	r    io.ReaderAt
	size int64
	mu   sync.Mutex
	m    map[int64][]byte
	fifo []int64
}

// cachedReader wraps r in a block cache unless it already serves reads from
// memory.
func cachedReader(r io.ReaderAt, size int64) io.ReaderAt {
	switch r.(type) {
	case *bytes.Reader, *strings.Reader, Bytes:
		return r
	}
	return &blockCache{r: r, size: size, m: map[int64][]byte{}}
}

func (c *blockCache) block(i int64) ([]byte, error) {
	c.mu.Lock()
	b, ok := c.m[i]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	off := i * cacheBlockSize
	n := min(int64(cacheBlockSize), c.size-off)
	if n <= 0 {
		return nil, io.EOF
	}
	b = make([]byte, n)
	m, err := c.r.ReadAt(b, off)
	if m < len(b) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return b[:m], err
	}
	c.mu.Lock()
	if _, ok := c.m[i]; !ok {
		if len(c.fifo) >= maxCachedBlocks {
			delete(c.m, c.fifo[0])
			c.fifo = c.fifo[1:]
		}
		c.m[i] = b
		c.fifo = append(c.fifo, i)
	}
	c.mu.Unlock()
	return b, nil
}

func (c *blockCache) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := 0
	for n < len(p) {
		pos := off + int64(n)
		if pos >= c.size {
			return n, io.EOF
		}
		b, err := c.block(pos / cacheBlockSize)
		in := int(pos % cacheBlockSize)
		if in < len(b) {
			n += copy(p[n:], b[in:])
		}
		if err != nil && n < len(p) {
			return n, err
		}
		if in >= len(b) {
			return n, io.EOF
		}
	}
	return n, nil
}
