package docstore

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
)

// dropAliases deletes id's alias records, as a library written before
// aliases were mined has none.
func dropAliases(t *testing.T, l *Library, id DocID) {
	t.Helper()
	err := l.store.Update(func(tx storage.Tx) error {
		rec, _, err := readRecord(tx, id)
		if err != nil {
			return err
		}
		return deletePrefix(tx.Bucket(bucketLayout), aliasKey(rec.num, ""))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// deletePrefix deletes b's keys that start with prefix.
func deletePrefix(b storage.Bucket, prefix []byte) error {
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// aliasKeys counts the alias records of every document.
func aliasKeys(t *testing.T, l *Library) int {
	t.Helper()
	n := 0
	err := l.store.View(func(tx storage.Tx) error {
		return tx.Bucket(bucketLayout).ForEach(func(k, _ []byte) error {
			if len(k) >= 5 && k[4] == tagAlias {
				n++
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The aliases a document gives are mined when it is written and stored
// with it, in every backend: a lookup by word finds them with their
// sentence, a document stored without them is reported unmined, and a
// removal takes them away.
func TestAliasesStored(t *testing.T) {
	forBackends(t, func(t *testing.T, bk backend) {
		t.Parallel()
		l := bk.library(t)
		term := textproc.Term
		filing := addText(t, l, "filing.txt", "Revenue grew by a tenth in the year.\n\n"+
			"Our capital expenditures (\"capex\") rose to 5 million.\n\n"+
			"Capital expenditures will fall next year.\n")
		old := addText(t, l, "old.txt", "The Advanced Encryption Standard (AES) is a block cipher.\n")
		dropAliases(t, l, old.ID)

		found, unmined, err := l.Index().Aliases([]DocID{filing.ID, old.ID, "no-such-document"}, []string{term("capex"), term("revenue")})
		if err != nil {
			t.Fatal(err)
		}
		want := FoundAlias{Doc: filing.ID, Alias: Alias{Word: term("capex"), Other: term("capital") + " " + term("expenditures"), Sentence: 1}}
		if len(found) != 1 || found[0] != want {
			t.Errorf("found %+v, want %+v", found, want)
		}
		if !slices.Equal(unmined, []DocID{old.ID}) {
			t.Errorf("unmined %v, want the document without records, %s", unmined, old.ID)
		}
		// The long form is no key: a question's word is one word.
		if found, _, _ := l.Index().Aliases([]DocID{filing.ID}, []string{term("capital")}); len(found) != 0 {
			t.Errorf("a word of a long form found %+v", found)
		}

		if err := l.Remove(filing.ID, old.ID); err != nil {
			t.Fatal(err)
		}
		if err := l.Tidy(); err != nil {
			t.Fatal(err)
		}
		if n := aliasKeys(t, l); n != 0 {
			t.Errorf("%d alias records left after the documents were removed", n)
		}
	})
}

// A record cut short is damage, reported, not a panic or a wrong alias.
func TestAliasesDamaged(t *testing.T) {
	t.Parallel()
	for _, v := range [][]byte{{0x80}, {1, 9, 'a'}} {
		if _, ok := decodeAliases("w", v); ok {
			t.Errorf("%x decoded", v)
		}
	}
	if as, ok := decodeAliases("w", []byte{3, 2, 'a', 'b', 4, 0}); !ok || len(as) != 2 || as[0] != (Alias{Word: "w", Other: "ab", Sentence: 3}) || as[1].Sentence != 4 {
		t.Errorf("decoded %+v, %v", as, ok)
	}
}

// A document written a piece at a time has its aliases mined piece by
// piece, numbered in the document, and a word's aliases from two pieces
// are both kept.
func TestAliasesPieces(t *testing.T) {
	t.Parallel()
	l := openTestLibrary(t)
	var sb strings.Builder
	for i := range 600 {
		fmt.Fprintf(&sb, "Sentence %d says little.\n\n", i)
		if i == 10 || i == 590 {
			sb.WriteString("The Advanced Encryption Standard (AES) is a block cipher.\n\n")
		}
	}
	text := sb.String()
	pw, err := l.NewPieceWriter(IDFor([]byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	ps := pieces(text, 4<<10)
	if len(ps) < 2 {
		t.Fatalf("%d pieces, want several", len(ps))
	}
	for _, p := range ps {
		if err := pw.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	info, _, err := pw.Publish(&Document{DocInfo: DocInfo{ID: IDFor([]byte(text)), Name: "stream.txt", Kind: "text", Pages: 1, Added: fixtureAdded},
		PageStarts: []int32{0}})
	if err != nil {
		t.Fatal(err)
	}
	found, _, err := l.Index().Aliases([]DocID{info.ID}, []string{textproc.Term("AES")})
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Document(info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 {
		t.Fatalf("found %+v, want AES's two", found)
	}
	for _, a := range found {
		if s := d.SentenceText(int(a.Sentence)); !strings.Contains(s, "(AES)") {
			t.Errorf("alias %+v is said in sentence %d, %q", a, a.Sentence, s)
		}
	}
}
