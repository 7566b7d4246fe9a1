package docstore

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var lastProblems string

func salvageCount(t *testing.T, path string) (int, bool) {
	l, err := Open(path, &Options{ReadDamaged: true})
	if err != nil {
		return 0, true
	}
	defer l.Close()
	in, err := l.Inspect(context.Background())
	damaged := err != nil || !in.OK()
	if damaged && in != nil {
		lastProblems = fmt.Sprint(in.Problems)
	}
	dst, err := Open(filepath.Join(t.TempDir(), "s.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	rep, err := l.Salvage(context.Background(), dst, nil)
	if err != nil || rep == nil {
		return 0, damaged
	}
	return len(rep.Copied) + len(rep.Resegmented), damaged
}

func TestZZMutations(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base.db")
	l, err := Open(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		body := strings.Repeat(fmt.Sprintf("Document %d talks about rivers and courts number %d. ", i, i), 200+i*50)
		if _, _, err := l.Add(t.Context(), writeFile(t, fmt.Sprintf("d%d.txt", i), body), nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 5; i++ {
		l.SaveAnswer(fmt.Sprintf("a%d", i), []byte(fmt.Sprintf(`{"answer_id":"a%d","question":"q","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`, i)))
	}
	docs, _ := l.List()
	l.Remove(docs[0].ID) // a free list
	l.Close()
	orig, _ := os.ReadFile(base)
	pageSize := 4096
	seed, _ := strconv.Atoi(os.Getenv("ZZSEED"))
	rng := rand.New(rand.NewSource(int64(seed)))
	var trials, damagedN, writtenWhileDamaged, lost, panics, refused int
	for trial := 0; trial < 300; trial++ {
		b := append([]byte(nil), orig...)
		pages := len(b) / pageSize
		switch rng.Intn(6) {
		case 0: // a header of a page
			p := 2 + rng.Intn(pages-2)
			b[p*pageSize+rng.Intn(16)] ^= byte(1 << rng.Intn(8))
		case 1: // bytes in a page
			p := 2 + rng.Intn(pages-2)
			for k := 0; k < 1+rng.Intn(8); k++ {
				b[p*pageSize+rng.Intn(pageSize)] = byte(rng.Intn(256))
			}
		case 2: // an element table entry
			p := 2 + rng.Intn(pages-2)
			off := p*pageSize + 16 + rng.Intn(64)
			b[off] ^= byte(1 << rng.Intn(8))
		case 3: // a page's id or flags
			p := 2 + rng.Intn(pages-2)
			b[p*pageSize+rng.Intn(12)] = byte(rng.Intn(256))
		case 4: // a whole page zeroed
			p := 2 + rng.Intn(pages-2)
			copy(b[p*pageSize:(p+1)*pageSize], make([]byte, pageSize))
		case 5: // a meta page byte (checksummed)
			b[rng.Intn(2)*pageSize+16+rng.Intn(64)] ^= byte(1 << rng.Intn(8))
		}
		path := filepath.Join(t.TempDir(), "lib.db")
		os.WriteFile(path, b, 0o600)
		lastProblems = ""
		before, damaged := salvageCount(t, path)
		problems := lastProblems
		os.WriteFile(path, b, 0o600) // salvage reads only; be sure
		trials++
		if damaged {
			damagedN++
		}
		func() {
			defer func() {
				if x := recover(); x != nil {
					panics++
					t.Logf("trial %d panicked: %v", trial, x)
				}
			}()
			l, err := Open(path, nil)
			if err != nil {
				refused++
				return
			}
			defer l.Close()
			docs, _ := l.List()
			for _, d := range docs {
				l.Document(d.ID)
			}
			l.ReadPostings(nil, FieldSentences, []string{"river", "court"}, func(ps []*Postings) error { return nil })
			l.Add(t.Context(), writeFile(t, fmt.Sprintf("new%d.txt", trial), "A new document. It has two sentences."), nil)
			l.SaveAnswer("new", []byte(`{"answer_id":"new","question":"q","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`))
			if len(docs) > 1 {
				l.Remove(docs[1].ID)
			}
		}()
		after, _ := os.ReadFile(path)
		if damaged && !bytes.Equal(after, b) {
			writtenWhileDamaged++
			t.Logf("trial %d: written while damaged: %s", trial, problems)
			if n, _ := salvageCount(t, path); n < before {
				lost++
				t.Logf("trial %d: written while damaged, salvage %d -> %d", trial, before, n)
			}
		}
	}
	t.Logf("trials %d, damaged per check %d, refused at open %d, panics %d, written while damaged %d, documents lost %d", trials, damagedN, refused, panics, writtenWhileDamaged, lost)
}
