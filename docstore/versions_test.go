package docstore

import (
	"testing"
)

// A document written naming the one before is its next version: both
// stay readable, the line runs oldest first from either, the older is
// superseded, and SamePath finds both by the path they were added from.
func TestVersions(t *testing.T) {
	l := openTestLibrary(t)
	v1 := addText(t, l, "contract.txt", "The fee is ten pounds. Payment is due in thirty days.")
	other := addText(t, l, "other.txt", "Something else entirely. Nothing to do with it.")
	d2 := fixture("contract.txt", "The fee is twelve pounds. Payment is due in thirty days.")
	d2.Previous = v1.ID
	info, _, err := writeDoc(l, d2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []DocID{v1.ID, info.ID} {
		vs, err := l.Versions().Of(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 2 || vs[0].ID != v1.ID || vs[1].ID != info.ID {
			t.Errorf("versions of %s: %v, want %s then %s", id, vs, v1.ID, info.ID)
		}
	}
	if vs, err := l.Versions().Of(other.ID); err != nil || len(vs) != 1 {
		t.Errorf("a document of one version: %v %v", vs, err)
	}
	infos, err := l.List()
	if err != nil {
		t.Fatal(err)
	}
	if s := Superseded(infos); !s[v1.ID] || s[info.ID] || s[other.ID] || len(s) != 1 {
		t.Errorf("superseded %v, want only %s", s, v1.ID)
	}
	// The old version reads as it was.
	if d, err := l.Document(v1.ID); err != nil || d.Text != v1.Text {
		t.Errorf("old version: %v", err)
	}
	same, err := l.Versions().SamePath("/fixtures/contract.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(same) != 2 || same[0].ID != v1.ID || same[1].ID != info.ID {
		t.Errorf("same path: %v", same)
	}
	if same, _ := l.Versions().SamePath("/elsewhere/contract.txt"); len(same) != 0 {
		t.Errorf("another path's file of the same name: %v", same)
	}
	// A removed middle version ends the line there, without a panic.
	if err := l.Remove(v1.ID); err != nil {
		t.Fatal(err)
	}
	if vs, err := l.Versions().Of(info.ID); err != nil || len(vs) != 1 {
		t.Errorf("after removing the first version: %v %v", vs, err)
	}
}

// A loop of Previous links (a damaged record) ends, listing each once.
func TestLineageLoop(t *testing.T) {
	infos := []DocInfo{{ID: "a", Previous: "b"}, {ID: "b", Previous: "a"}}
	if got := Lineage(infos, "a"); len(got) != 2 {
		t.Errorf("loop: %v", got)
	}
	if got := Lineage(infos, "zz"); got != nil {
		t.Errorf("unknown: %v", got)
	}
}

// A name matching versions of one document means its latest; matching
// documents of their own it is ambiguous still.
func TestResolveNameOfVersions(t *testing.T) {
	l := openTestLibrary(t)
	v1 := addText(t, l, "contract.txt", "The fee is ten pounds. Payment is due in thirty days.")
	d2 := fixture("contract.txt", "The fee is twelve pounds. Payment is due in thirty days.")
	d2.Previous = v1.ID
	v2, _, err := writeDoc(l, d2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l.Resolve("contract.txt"); err != nil || got.ID != v2.ID {
		t.Errorf("Resolve by name: %s %v, want the latest %s", got.ID, err, v2.ID)
	}
	addText(t, l, "notes.txt", "One note here. Nothing else.")
	addText(t, l, "notes.txt", "Another note here. Different text.")
	if _, err := l.Resolve("notes.txt"); err == nil {
		t.Error("two documents of one name, not versions: resolved without complaint")
	}
}
