package reanchor

import (
	"hash/maphash"
	"strings"
	"testing"

	"github.com/citelens/citelens/ingest/split"
)

// version splits text into sentences as the library does.
func version(text string) *Version {
	v := &Version{Text: text}
	for _, s := range split.Sentences(text) {
		v.Sentences = append(v.Sentences, Sentence{Start: s.Start, End: s.End, Page: 1})
	}
	return v
}

// find returns the index of the sentence of v beginning with prefix.
func find(t *testing.T, v *Version, prefix string) int {
	t.Helper()
	for i := range v.Sentences {
		if strings.HasPrefix(v.text(i), prefix) {
			return i
		}
	}
	t.Fatalf("no sentence begins %q", prefix)
	return -1
}

const contract = `The Supplier shall deliver the Goods within 30 days of the Order. Delivery is made to the Customer's premises at the Supplier's cost. Risk passes on delivery.

Payment is due within thirty days of the invoice date. Late payment bears interest at 4% a year above the base rate. The Customer may set off sums owed to it by the Supplier.

Either party may end this agreement on ninety days' written notice. Termination does not affect rights accrued before it. The confidentiality clause survives termination.

This agreement is governed by the law of England. The courts of London have exclusive jurisdiction over any dispute arising from it.`

func TestClasses(t *testing.T) {
	old := version(contract)
	newText := strings.NewReplacer(
		// a figure changed
		"within 30 days of the Order", "within 45 days of the Order",
		// a clause struck
		" The Customer may set off sums owed to it by the Supplier.", "",
		// a paragraph moved to the end
		"\n\nThis agreement is governed by the law of England. The courts of London have exclusive jurisdiction over any dispute arising from it.", "",
	).Replace(contract)
	newText = "This agreement is governed by the law of England. The courts of London have exclusive jurisdiction over any dispute arising from it.\n\n" + newText
	// a clause rewritten beyond recognition
	newText = strings.Replace(newText, "Risk passes on delivery.", "The Customer bears all loss from the moment the carrier signs.", 1)
	nv := version(newText)
	a := Align(old, nv)
	for _, c := range []struct {
		prefix string
		want   Class
		newPre string
	}{
		{"The Supplier shall deliver", Changed, "The Supplier shall deliver the Goods within 45"},
		{"Delivery is made", Unchanged, "Delivery is made"},
		{"Risk passes", Gone, ""},
		{"Payment is due", Unchanged, "Payment is due"},
		{"The Customer may set off", Gone, ""},
		{"Either party may end", Unchanged, "Either party may end"},
		{"Termination does not", Unchanged, "Termination does not"},
		{"This agreement is governed", Moved, "This agreement is governed"},
	} {
		i := find(t, old, c.prefix)
		r := a.Citation(i, i)
		if r.Class != c.want {
			t.Errorf("%q: %s, want %s (%+v)", c.prefix, r.Class, c.want, r)
			continue
		}
		if c.want == Gone {
			if r.First != -1 {
				t.Errorf("%q: gone but points at %d", c.prefix, r.First)
			}
			continue
		}
		if got := nv.Text[r.Start:r.End]; !strings.HasPrefix(got, c.newPre) {
			t.Errorf("%q: new bytes %q, want to begin %q", c.prefix, got, c.newPre)
		}
		if c.want == Unchanged && nv.Text[r.Start:r.End] != old.text(i) {
			t.Errorf("%q: unchanged but the bytes differ: %q", c.prefix, nv.Text[r.Start:r.End])
		}
	}
	// A citation of three sentences, one of them struck: changed.
	p := find(t, old, "Payment is due")
	if r := a.Citation(p, p+2); r.Class != Changed {
		t.Errorf("a citation losing one of its sentences: %s, want changed", r.Class)
	}
	// Two moved sentences: one moved range.
	d := find(t, old, "This agreement is governed")
	r := a.Citation(d, d+1)
	if r.Class != Moved || nv.Text[r.Start:r.End] != old.Text[old.Sentences[d].Start:old.Sentences[d+1].End] {
		t.Errorf("two unchanged sentences: %s %q", r.Class, nv.Text[r.Start:r.End])
	}
}

// Repeated sentences are placed by their neighbours, never guessed.
func TestRepeatedText(t *testing.T) {
	old := version("Alpha one is first. See the table. Beta two is second. See the table. Gamma three is third.")
	nv := version("Alpha one is first. See the table. Inserted line is here. Beta two is second. See the table. Gamma three is third.")
	a := Align(old, nv)
	second := 3
	if old.text(second) != "See the table." {
		t.Fatalf("sentence 3 is %q", old.text(second))
	}
	r := a.Citation(second, second)
	if r.Class != Unchanged || r.First != 4 {
		t.Errorf("the second 'See the table.': %s at %d, want unchanged at 4", r.Class, r.First)
	}
}

// A reflowed text (new line breaks and spaces) is unchanged, and its new
// bytes are the new version's, exactly.
func TestReflowIsUnchanged(t *testing.T) {
	old := version("The quick brown fox jumps over the lazy dog.\nIt was not amused by the fox at all.")
	nv := version("Preface.\n\nThe quick brown fox\njumps over the lazy dog.  It was not\namused by the fox at all.")
	a := Align(old, nv)
	r := a.Citation(0, 1)
	if r.Class != Unchanged {
		t.Fatalf("reflowed: %s", r.Class)
	}
	if got := nv.Text[r.Start:r.End]; got != "The quick brown fox\njumps over the lazy dog.  It was not\namused by the fox at all." {
		t.Errorf("new bytes %q", got)
	}
}

// A sentence split in two is changed over both halves.
func TestSplitSentence(t *testing.T) {
	old := version("Start here now. The licence covers the software and its documentation and every update made to them. End here now.")
	nv := version("Start here now. The licence covers the software and its documentation. It also covers every update made to them. End here now.")
	a := Align(old, nv)
	r := a.Citation(1, 1)
	if r.Class != Changed || r.First != 1 || r.Last != 2 {
		t.Errorf("split: %s %d..%d, want changed 1..2", r.Class, r.First, r.Last)
	}
}

// Two rewrites of equal likeness: unsure, so gone, with both as
// candidates.
func TestAmbiguousIsGone(t *testing.T) {
	old := version("Intro text stays. The fee is ten pounds per month for each user. Outro text stays.")
	nv := version("Intro text stays. The fee is twelve pounds per month for each user. The fee is eleven pounds per month for each user. Outro text stays.")
	a := Align(old, nv)
	r := a.Citation(1, 1)
	if r.Class != Gone {
		t.Fatalf("ambiguous: %s %d..%d, want gone", r.Class, r.First, r.Last)
	}
	if len(r.Candidates) < 2 {
		t.Errorf("candidates %+v, want both rewrites", r.Candidates)
	}
}

// Out-of-range citations and empty versions are gone, not a panic.
func TestBadInput(t *testing.T) {
	a := Align(version("One sentence here."), &Version{})
	for _, c := range [][2]int{{0, 0}, {-1, 0}, {0, 5}, {1, 0}} {
		if r := a.Citation(c[0], c[1]); r.Class != Gone {
			t.Errorf("%v: %s", c, r.Class)
		}
	}
	bad := &Version{Text: "abc", Sentences: []Sentence{{Start: 2, End: 9}}}
	Align(bad, bad).Citation(0, 0)
}

func TestDiff(t *testing.T) {
	ops := Diff("deliver within 30 days of the Order", "deliver within 45 days of  the Order")
	want := []Op{{Same, "deliver within"}, {Delete, "30"}, {Insert, "45"}, {Same, "days of the Order"}}
	if len(ops) != len(want) {
		t.Fatalf("%+v", ops)
	}
	for i := range ops {
		if ops[i] != want[i] {
			t.Errorf("op %d: %+v, want %+v", i, ops[i], want[i])
		}
	}
}

// The hash that aligns sentences sees white space as strings.Fields does.
func TestNormHash(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, c := range [][2]string{{"a b", " a\n\tb "}, {"x\u00a0y", "x y"}, {"été là", "été\nlà"}} {
		if normHash(seed, c[0]) != normHash(seed, c[1]) {
			t.Errorf("%q and %q hash apart", c[0], c[1])
		}
	}
	if normHash(seed, "ab") == normHash(seed, "a b") || normHash(seed, " \n") != 0 {
		t.Error("white space between words must count, and an empty sentence hash to 0")
	}
}

// A sentence extended well past half its length (a clause added after
// "etc.") is changed, found by holding all its words in order.
func TestExtendedSentence(t *testing.T) {
	old := version("Grants are listed below.\n\nAllows creation of a trigger on a table, view, etc.\n\nRevokes follow later.")
	nv := version("Grants are listed below.\n\nAllows creation of a trigger on a table, view, etc. Great care should be taken when granting this privilege, since any triggers added to a table or view will be executed with the privileges of users who modify it.\n\nRevokes follow later.")
	r := Align(old, nv).Citation(1, 1)
	if r.Class != Changed || !strings.Contains(nv.Text[r.Start:r.End], "Great care") {
		t.Errorf("extended: %s %q", r.Class, nv.Text[r.Start:r.End])
	}
}

// Any two texts align without a panic, and what is called unchanged or
// moved is the same words at its new bytes.
func FuzzAlign(f *testing.F) {
	f.Add(contract, strings.Replace(contract, "30 days", "45 days", 1), 0, 2)
	f.Add("A b c. D e f.", "D e f. A b c.", 1, 1)
	f.Add("", "x.", 0, 0)
	f.Fuzz(func(t *testing.T, a, b string, first, last int) {
		old, nv := version(a), version(b)
		al := Align(old, nv)
		r := al.Citation(first, last)
		if r.Class == Unchanged || r.Class == Moved {
			if !sameText(old.span(first, last), nv.Text[r.Start:r.End]) {
				t.Errorf("%s but %q became %q", r.Class, old.span(first, last), nv.Text[r.Start:r.End])
			}
		}
	})
}
