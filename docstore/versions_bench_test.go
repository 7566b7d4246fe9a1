package docstore

import (
	"fmt"
	"testing"
)

// BenchmarkVersionsScope is the whole-library scope of a library of 500
// documents, every tenth a new version of the one before: what each
// whole-library ask, search and MCP call reads first. "listing" is Scope
// (one scan of the listing), "metadata" the same found from every
// metadata record (List), as Scope did before the listing kept
// previous versions.
func BenchmarkVersionsScope(b *testing.B) {
	l := openTestLibrary(b)
	var prev DocID
	for i := range 500 {
		d := fixture(fmt.Sprintf("doc-%d.txt", i), fmt.Sprintf("Document %d says one thing. It says another thing too.", i))
		if i%10 == 9 {
			d.Previous = prev
		}
		info, _, err := writeDoc(l, d, nil)
		if err != nil {
			b.Fatal(err)
		}
		prev = info.ID
	}
	b.Run("listing", func(b *testing.B) {
		for b.Loop() {
			ids, err := l.Versions().Scope()
			if err != nil || len(ids) != 450 {
				b.Fatalf("%d documents in scope, %v", len(ids), err)
			}
		}
	})
	b.Run("metadata", func(b *testing.B) {
		for b.Loop() {
			infos, err := l.List()
			if err != nil || len(infos)-len(Superseded(infos)) != 450 {
				b.Fatalf("%d documents, %v", len(infos), err)
			}
		}
	})
}
