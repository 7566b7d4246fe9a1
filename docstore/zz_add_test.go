package docstore

import (
	"path/filepath"
	"testing"
)

func BenchmarkZZAddFullrefman(b *testing.B) {
	for b.Loop() {
		l, err := Open(filepath.Join(b.TempDir(), "x.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := l.Add(b.Context(), fullrefman, nil); err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
}
