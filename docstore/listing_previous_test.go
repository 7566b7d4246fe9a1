package docstore

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/citelens/citelens/storage"
)

// The listing keeps each document's previous version, so the library's
// versions (Links, Scope, and the TUI's and ls's Listing) are one scan
// of it: they read no metadata record. An entry written before the
// listing kept it still lists its previous version, from its metadata.
func TestListingKeepsPreviousVersion(t *testing.T) {
	l := openTestLibrary(t)
	v1 := addText(t, l, "contract.txt", "The fee is ten pounds. Payment is due in thirty days.")
	other := addText(t, l, "other.txt", "Something else entirely. Nothing to do with it.")
	d2 := fixture("contract.txt", "The fee is twelve pounds. Payment is due in thirty days.")
	d2.Previous = v1.ID
	v2, _, err := writeDoc(l, d2, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[DocID]DocID{v1.ID: "", other.ID: "", v2.ID: v1.ID}
	listed := func() map[DocID]DocID {
		t.Helper()
		entries, _, err := l.Listing(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := map[DocID]DocID{}
		for _, e := range entries {
			got[e.ID] = e.Info().Previous
		}
		return got
	}
	if got := listed(); !mapsEqual(got, want) {
		t.Fatalf("listing's previous versions %v, want %v", got, want)
	}

	// Without the metadata records (taken away for the call, put back
	// for the test's closing check), the versions still read; List, which
	// Scope read before, would find the library damaged (and the library
	// would then refuse the writes that put them back).
	var saved [][2][]byte
	if err := l.store.Update(func(tx storage.Tx) error {
		b := tx.Bucket(bucketDocs)
		for _, id := range []DocID{v1.ID, other.ID, v2.ID} {
			saved = append(saved, [2][]byte{[]byte(id), slices.Clone(b.Get([]byte(id)))})
			if err := b.Delete([]byte(id)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	scope, scopeErr := l.Versions().Scope()
	links, linksErr := l.Versions().Links()
	if err := l.store.Update(func(tx storage.Tx) error {
		for _, kv := range saved {
			if err := tx.Bucket(bucketDocs).Put(kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if scopeErr != nil || linksErr != nil || !slices.Equal(scope, []DocID{other.ID, v2.ID}) || len(links) != 3 || links[2].Previous != v1.ID {
		t.Errorf("from the listing alone: scope %v (%v), links %v (%v)", scope, scopeErr, links, linksErr)
	}

	// An entry as an older citelens wrote it: no previous-version field.
	var num []byte
	var old []byte
	if err := l.store.Update(func(tx storage.Tx) error {
		rec, ok, err := readRecord(tx, v2.ID)
		if err != nil || !ok {
			return errors.Join(err, errors.New("no index record"))
		}
		num = numKey(rec.num)
		e, err := decodeListEntry(rec.num, tx.Bucket(bucketListing).Get(num))
		if err != nil {
			return err
		}
		enc := e.encode()
		old = enc[:len(enc)-1-len(e.Previous)]
		return tx.Bucket(bucketListing).Put(num, old)
	}); err != nil {
		t.Fatal(err)
	}
	if e, err := decodeListEntry(DocNum(binary.BigEndian.Uint32(num)), old); err != nil || e.linked || e.Previous != "" || e.ID != v2.ID {
		t.Fatalf("an old entry decodes as %+v, %v", e, err)
	}
	if got := listed(); !mapsEqual(got, want) {
		t.Errorf("with an old entry, the listing's previous versions %v, want %v", got, want)
	}
	if scope, err := l.Versions().Scope(); err != nil || !slices.Equal(scope, []DocID{other.ID, v2.ID}) {
		t.Errorf("with an old entry, scope %v, %v", scope, err)
	}
}

func mapsEqual(a, b map[DocID]DocID) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
