package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/citelens/citelens/internal/synthetic"
)

// genDocs writes n documents into dir (doc-000001.txt …), the same n
// documents for the same seed, each scale times the corpus's drawn size
// (at least 200 bytes), and returns their total size.
func genDocs(dir string, n int, seed uint64, scale float64) (int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	c := synthetic.New(seed, synthetic.Vocabulary)
	var total int64
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("doc-%06d.txt", i+1))
		f, err := os.Create(path)
		if err != nil {
			return total, err
		}
		w := bufio.NewWriter(f)
		err = c.Document(w, max(int(float64(c.DocSize())*scale), 200))
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return total, err
		}
		st, _ := os.Stat(path)
		total += st.Size()
	}
	return total, nil
}

// genBig writes one text of about size bytes to path.
func genBig(path string, size int64, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = synthetic.New(seed, synthetic.Vocabulary).BigText(w, size)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
