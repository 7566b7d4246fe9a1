package docstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/citelens/citelens/storage"
)

// buildLibrary writes a library with three documents and a saved answer,
// closes it and returns its path.
func buildLibrary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "library.db")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range []string{
		strings.Repeat("Rivers carry water to the sea. ", 400),
		strings.Repeat("Mountains rise above the plains. ", 400),
	} {
		if _, _, err := writeText(l, "doc"+string(rune('a'+i))+".txt", body); err != nil {
			t.Fatal(err)
		}
	}
	addFile(t, l, sampleText)
	if err := l.Answers().Save("a1", []byte(`{"answer_id":"a1","question":"q","strategy":"extractive","created":"2026-01-02T03:04:05Z"}`)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// exercise runs what `ask`, `add` and `show` do on a library and returns
// the first error; it must never panic.
func exercise(t *testing.T, l *Library) error {
	docs, err := l.List()
	if err != nil {
		return err
	}
	for _, info := range docs {
		d, err := l.Document(info.ID)
		if err != nil {
			return err
		}
		for i := range d.Sentences {
			_ = d.SentenceText(i)
		}
		for i := range d.Chunks {
			d.ChunkSpan(i)
		}
	}
	if err := l.Index().Read(nil, FieldSentences, []string{"river", "water", "declar"}, func(r *IndexReader) error {
		for t := range r.Terms() {
			p := r.Postings(t)
			for p.Next() {
				if err := p.Each(func(int, int, int) {}); err != nil {
					return err
				}
			}
			if err := p.Err(); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if _, err := l.Answers().List(); err != nil {
		return err
	}
	_, _, err = writeText(l, "new.txt", "A new document. It has two sentences.")
	return err
}

// TestTruncatedLibrary: a library file cut short (an interrupted copy)
// is refused with "the library is damaged" at open, or, wherever the cut
// falls, every operation returns an error instead of crashing; with
// ReadDamaged, Inspect reports it and Salvage copies what is readable.
func TestTruncatedLibrary(t *testing.T) {
	src := buildLibrary(t)
	full, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// bbolt grows its file ahead of its pages: a cut past the pages in use
	// loses nothing.
	var need int
	l, err := Open(src, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	rawBolt(l).View(func(tx *bolt.Tx) error { need = int(tx.Size()); return nil })
	l.Close()
	page := os.Getpagesize()
	cuts := []int{100, page, 2 * page, 3*page + 17, need / 4, need / 2, need * 3 / 4, need - page, need - 1, need, len(full) - 1}
	salvaged := 0
	for _, n := range cuts {
		damage := n < need
		path := filepath.Join(t.TempDir(), "cut.db")
		if err := os.WriteFile(path, full[:n], 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := Open(path, nil)
		if err == nil {
			err = exercise(t, l)
			l.Close()
		}
		switch {
		case !damage && err != nil:
			t.Errorf("cut at %d, past the %d bytes in use: %v", n, need, err)
		case damage && !errors.Is(err, ErrCorrupt):
			t.Errorf("cut at %d of %d bytes: %v, want ErrCorrupt", n, need, err)
		case err != nil && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "the library is damaged: ")):
			t.Errorf("cut at %d: message %q", n, err)
		}

		// check and salvage
		l, err = Open(path, &Options{ReadDamaged: true})
		if err != nil {
			if n >= 2*page || !errors.Is(err, ErrCorrupt) {
				t.Errorf("cut at %d: ReadDamaged open: %v", n, err)
			}
			continue
		}
		in, err := l.Inspect(t.Context())
		if err != nil {
			t.Errorf("cut at %d: Inspect: %v", n, err)
		} else if in.OK() == damage {
			t.Errorf("cut at %d of %d bytes: Inspect found %v", n, need, in.Problems)
		}
		dst, err := Open(filepath.Join(t.TempDir(), "salvaged.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := l.Salvage(t.Context(), dst, fixtureSplit, nil)
		if err != nil {
			t.Errorf("cut at %d: Salvage: %v", n, err)
		}
		if rep != nil {
			salvaged = max(salvaged, len(rep.Copied)+len(rep.Resegmented))
		}
		if err := dst.Check(); err != nil {
			t.Errorf("cut at %d: the salvaged library is inconsistent: %v", n, err)
		}
		if err := exercise(t, dst); err != nil {
			t.Errorf("cut at %d: the salvaged library fails: %v", n, err)
		}
		dst.Close()
		l.Close()
	}
	if salvaged == 0 {
		t.Error("no cut let Salvage copy a document")
	}
}

// TestDamagedPages: a library with a page overwritten (by garbage, by
// zeros, by a copy of another page) opens with an error or works, and
// every operation, Inspect and Salvage return rather than crash.
func TestDamagedPages(t *testing.T) {
	src := buildLibrary(t)
	full, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(src, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	rawBolt(l).View(func(tx *bolt.Tx) error { pages = int(tx.Size()) / 4096; return nil })
	l.Close()
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*131 + 7)
	}
	damaged := 0
	for p := 2; p < pages; p += 3 {
		for name, fill := range map[string][]byte{"garbage": garbage, "zeros": make([]byte, 4096), "page 2": full[2*4096 : 3*4096]} {
			b := append([]byte(nil), full...)
			copy(b[p*4096:], fill)
			path := filepath.Join(t.TempDir(), "damaged.db")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := Open(path, nil)
			if err == nil {
				err = exercise(t, l)
				if cerr := l.Check(); err == nil {
					err = cerr
				}
				l.Close()
			}
			if err != nil {
				damaged++
				if !errors.Is(err, ErrCorrupt) || strings.Contains(err.Error(), "\n") {
					t.Errorf("page %d overwritten with %s: %v, want a one-line ErrCorrupt", p, name, err)
				}
			}
			if l, err := Open(path, &Options{ReadDamaged: true}); err == nil {
				if _, err := l.Inspect(t.Context()); err != nil {
					t.Errorf("page %d overwritten with %s: Inspect: %v", p, name, err)
				}
				dst, err := Open(filepath.Join(t.TempDir(), "salvaged.db"), nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := l.Salvage(t.Context(), dst, fixtureSplit, nil); err != nil {
					t.Errorf("page %d overwritten with %s: Salvage: %v", p, name, err)
				}
				if err := dst.Check(); err != nil {
					t.Errorf("page %d overwritten with %s: salvaged library: %v", p, name, err)
				}
				dst.Close()
				l.Close()
			}
		}
	}
	if damaged == 0 {
		t.Error("no overwritten page was noticed")
	}
}

// damageLayout rewrites document id's layout record with fn.
func damageLayout(t *testing.T, l *Library, id DocID, fn func(d *Document)) {
	t.Helper()
	err := l.store.Update(func(tx storage.Tx) error {
		rec, _, err := readRecord(tx, id)
		if err != nil {
			return err
		}
		d, err := readDocument(tx, id)
		if err != nil {
			return err
		}
		fn(d)
		b := tx.Bucket(bucketLayout)
		if err := b.Put(pieceKey(rec.num, tagHeader, 0), encodeHeader(d)); err != nil {
			return err
		}
		if err := b.Put(pieceKey(rec.num, tagChunks, 0), encodeChunks(d.Chunks[:min(len(d.Chunks), chunkPiece)])); err != nil {
			return err
		}
		return b.Put(pieceKey(rec.num, tagSentences, 0), encodeSentences(d.Sentences[:min(len(d.Sentences), sentPiece)]))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDamagedLayoutRecord: a layout record whose sentence ends past the
// text (what made `show --sentences` and `ask` panic in SentenceText) is
// reported as damage naming the document and the sentence; Check finds
// it, Salvage segments the document again from its text, and the other
// documents stay readable.
func TestDamagedLayoutRecord(t *testing.T) {
	path := buildLibrary(t)
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := l.List()
	victim := docs[1].ID
	damageLayout(t, l, victim, func(d *Document) { d.Sentences[3].End = 1 << 30 })
	_, err = l.Document(victim)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "the library is damaged: document "+string(victim)+"'s layout record has sentence 3 at bytes") {
		t.Errorf("Document(damaged) = %v", err)
	}
	for _, other := range []DocID{docs[0].ID, docs[2].ID} {
		if _, err := l.Document(other); err != nil {
			t.Errorf("undamaged document %s: %v", other, err)
		}
	}
	if err := l.Check(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), string(victim)) {
		t.Errorf("Check = %v", err)
	}
	in, err := l.Inspect(t.Context())
	if err != nil || in.Documents != 3 || in.Readable != 2 || len(in.Problems) != 1 || in.Problems[0].Doc != victim || in.Problems[0].Name == "" {
		t.Errorf("Inspect = %+v, %v", in, err)
	}
	dst, err := Open(filepath.Join(t.TempDir(), "salvaged.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	rep, err := l.Salvage(t.Context(), dst, fixtureSplit, nil)
	if err != nil || len(rep.Copied) != 2 || len(rep.Resegmented) != 1 || rep.Answers != 1 {
		t.Fatalf("Salvage = %+v, %v", rep, err)
	}
	d, err := dst.Document(victim)
	if err != nil || d.NumSents != len(d.Sentences) || !strings.HasPrefix(d.SentenceText(3), "Mountains rise") && !strings.HasPrefix(d.SentenceText(3), "Rivers carry") {
		t.Errorf("salvaged document: %v", err)
	}
	if err := dst.Check(); err != nil {
		t.Error(err)
	}
	l.Close()

	// The other ways a layout lies about its text.
	for name, fn := range map[string]func(d *Document){
		"negative start":   func(d *Document) { d.Sentences[0].Start = -4 },
		"start after end":  func(d *Document) { d.Sentences[2].Start = d.Sentences[2].End + 1 },
		"page past end":    func(d *Document) { d.Sentences[1].Page = 99 },
		"chunk past end":   func(d *Document) { d.Chunks[0].Last = int32(len(d.Sentences)) },
		"chunk backwards":  func(d *Document) { d.Chunks[0].First, d.Chunks[0].Last = 2, 1 },
		"page start":       func(d *Document) { d.PageStarts[0] = 1 << 30 },
		"sentence dropped": func(d *Document) { d.Sentences = d.Sentences[:len(d.Sentences)-1]; d.Chunks = d.Chunks[:1] },
	} {
		path := buildLibrary(t)
		l, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		docs, _ := l.List()
		damageLayout(t, l, docs[0].ID, fn)
		if _, err := l.Document(docs[0].ID); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Document = %v, want ErrCorrupt", name, err)
		}
		l.Close()
	}
}

// FuzzDecodeDocument: whatever bytes the records of a document hold,
// decoding returns an error or a document whose every accessor works.
func FuzzDecodeDocument(f *testing.F) {
	d := fixture("doc.txt", "One sentence here. Another one there.\n\nA third, in a new paragraph.")
	info := []byte(`{"id":"x","name":"doc.txt","sentences":3,"chunks":1,"bytes":66}`)
	header, sents, chunks := encodeHeader(d), encodeSentences(d.Sentences), encodeChunks(d.Chunks)
	f.Add(info, []byte(d.Text), header, sents, chunks)
	f.Add(info, []byte(d.Text), header[:20], sents, chunks)
	f.Add(info, []byte(d.Text), header, sents[:30], chunks)
	f.Add([]byte(`{}`), []byte(""), []byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, info, text, header, sents, chunks []byte) {
		d, err := decodeDocument("x", &docParts{info: info, text: string(text), header: header,
			sents: [][]byte{sents}, chunks: [][]byte{chunks}})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		for i := range d.Sentences {
			_ = d.SentenceText(i)
			d.PageOf(int(d.Sentences[i].Start))
			d.HeadingTrail(i)
			d.TableContext(i)
		}
		for i := range d.Chunks {
			s, e := d.ChunkSpan(i)
			_ = d.Text[s:e]
		}
	})
}
