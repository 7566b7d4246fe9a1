package pdffile

import (
	"bytes"
	"io"
	"testing"
)

func TestBlockCache(t *testing.T) {
	t.Parallel()
	data := make([]byte, 3*cacheBlockSize+123)
	for i := range data {
		data[i] = byte(i * 7)
	}
	c := &blockCache{r: readerAtOnly{bytes.NewReader(data)}, size: int64(len(data)), m: map[int64][]byte{}}
	for _, span := range [][2]int{{0, 10}, {cacheBlockSize - 5, 10}, {len(data) - 50, 50}, {100, 2*cacheBlockSize + 7}} {
		p := make([]byte, span[1])
		n, err := c.ReadAt(p, int64(span[0]))
		if n != span[1] || err != nil && err != io.EOF || !bytes.Equal(p, data[span[0]:span[0]+span[1]]) {
			t.Errorf("ReadAt(%d, %d) = %d, %v", span[0], span[1], n, err)
		}
	}
	p := make([]byte, 100)
	if n, err := c.ReadAt(p, int64(len(data)-40)); n != 40 || err != io.EOF {
		t.Errorf("read past the end = %d, %v", n, err)
	}
}

type readerAtOnly struct{ r io.ReaderAt }

func (r readerAtOnly) ReadAt(p []byte, off int64) (int, error) { return r.r.ReadAt(p, off) }
