package retrieve

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/enginetest/librarytest"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/internal/textproc/aliases"
)

// An alias leads from the question's word to the name the documents use
// more: "Rijndael" reaches "AES", but "bzip2", used everywhere, does not
// reach the rarer "bunzip2" named beside it.
func TestAliasTowardsDocumentWords(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.TextLibrary(t, "manual.txt",
		"The winner was AES, also known as Rijndael, a block cipher.\n\n"+
			"AES has a block size of 16 octets.\n\n"+
			"AES keys are 128, 192 or 256 bits long.\n\n"+
			"bunzip2 (or bzip2 -d) decompresses all specified files.\n\n"+
			"bzip2 compresses files in blocks.\n\n"+
			"bzip2 is a resource hog.\n\n"+
			"bzip2 reads arguments from an environment variable.\n")
	r := New(lib)
	term := textproc.Term
	rk := &ranker{q: parseQuery("Is Rijndael patented, and is bzip2?")}
	found := []Alias{{Word: term("Rijndael"), Other: term("AES")}, {Word: term("bzip2"), Other: term("bunzip2")}}
	kept, add, err := r.towardsDocumentWords(rk, found, []docstore.DocID{docs[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].Word != term("Rijndael") || !slices.Equal(add, []string{term("AES")}) {
		t.Errorf("kept %v adding %v, want Rijndael's alias alone, adding AES", kept, add)
	}
}

// capexText is a filing that defines its abbreviation once and then uses
// its long form; testdata/old-aliases.db.gz holds it as a citelens
// without alias records stored it (testdata/old-aliases.txt).
const capexText = "Revenue grew by a tenth in 2024.\n\n" +
	"Our capital expenditures (\"capex\") are spent on new plants.\n\n" +
	"Capital expenditures were 7 million in 2024.\n\n" +
	"Capital expenditures will fall to 3 million in 2025.\n\n" +
	"The board met twice.\n"

// capexQuestion uses the filing's abbreviation, which only its
// definition holds.
const capexQuestion = "What did the capex come to?"

// askThroughAliases ranks capexQuestion over lib and returns whether a
// passage holds the long form without the abbreviation (which only the
// alias reaches),
// and the aliases searched through.
func askThroughAliases(t *testing.T, lib *docstore.Library) (bool, []Alias) {
	t.Helper()
	var found []Alias
	ps, err := New(lib).Sentences(context.Background(), capexQuestion, Options{K: 2, Aliases: func(f []Alias) { found = f }})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if t := strings.ToLower(p.Text); strings.Contains(t, "capital expenditures") && !strings.Contains(t, "capex") {
			return true, found
		}
	}
	return false, found
}

// A question's word reaches the document's word through the alias the
// document gives, read from the record stored when it was added.
func TestAliasStored(t *testing.T) {
	t.Parallel()
	lib, _ := librarytest.TextLibrary(t, "filing.txt", capexText)
	top, found := askThroughAliases(t, lib)
	if !top {
		t.Errorf("no passage of the long form's figures")
	}
	if len(found) != 1 || found[0].Word != textproc.Term("capex") || found[0].Sentence != 1 {
		t.Errorf("aliases %v, want capex's, said in sentence 1", found)
	}
}

// The lookup reads the stored record, not the sentences: a document whose
// record names an alias its sentences never state reaches it.
func TestAliasReadsRecord(t *testing.T) {
	t.Parallel()
	_, docs := librarytest.TextLibrary(t, "filing.txt", strings.Replace(capexText, ` ("capex")`, "", 1)+"The capex table is in the notes.\n")
	d := docs[0]
	term := textproc.Term
	d.Aliases = []docstore.Alias{{Word: term("capex"), Other: term("capital") + " " + term("expenditures"), Sentence: 5}}
	lib := libraryWith(t, d)
	top, found := askThroughAliases(t, lib)
	if !top || len(found) != 1 || found[0].Sentence != 5 {
		t.Errorf("long form's figures found %v through %v, want them through the record's alias", top, found)
	}
}

// A library stored before aliases were mined (by main's citelens at the
// time) has no records; its documents' sentences are read as before, and
// the question is answered the same.
func TestAliasOldLibrary(t *testing.T) {
	t.Parallel()
	gz, err := os.ReadFile("testdata/old-aliases.db.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "library.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := docstore.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ids, err := lib.IDs()
	if err != nil {
		t.Fatal(err)
	}
	if _, unmined, err := lib.Index().Aliases(ids, []string{textproc.Term("capex")}); err != nil || len(unmined) != 1 {
		t.Fatalf("the old library's document unmined %v (%v), want it reported", unmined, err)
	}
	top, found := askThroughAliases(t, lib)
	if !top || len(found) != 1 || found[0].Sentence != 1 {
		t.Errorf("long form's figures found %v through %v, want them through sentence 1's alias", top, found)
	}

	// A reindex mines the document and stores its records.
	if _, err := ingest.New(lib, nil).Reindex(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if ids, err = lib.IDs(); err != nil {
		t.Fatal(err)
	}
	stored, unmined, err := lib.Index().Aliases(ids, []string{textproc.Term("capex")})
	if err != nil || len(unmined) != 0 || len(stored) != 1 || stored[0].Sentence != 1 {
		t.Errorf("after a reindex: aliases %+v, unmined %v (%v); want capex's stored", stored, unmined, err)
	}
}

// An alias the documents name is searched through even when the
// question's own words already find good passages: "hexadecimal" is
// matched well by the sentence that names it, yet the functions are
// under the manual's own word, "base16".
func TestAliasWhenFirstPassStrong(t *testing.T) {
	t.Parallel()
	lib, _ := librarytest.TextLibrary(t, "manual.txt",
		"Binary data is turned into text by an encoding.\n\n"+
			"The base16 encoding, also known as “hexadecimal”, uses the digits and the letters A to F.\n\n"+
			"The function base16_encode_update turns binary data into base16 text.\n\n"+
			"The base16 decoder accepts upper and lower case.\n\n"+
			"Other things follow here.\n")
	var found []Alias
	ps, err := New(lib).Sentences(t.Context(), "How do I turn binary data into hexadecimal?", Options{K: 3, Aliases: func(f []Alias) { found = f }})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range ps {
		texts = append(texts, p.Text)
	}
	if len(found) == 0 || !strings.Contains(strings.Join(texts, "\n"), "base16_encode_update") {
		t.Errorf("aliases %v, passages %q: want the manual's base16 reached from hexadecimal", found, texts)
	}
}

// An alias is told in the document's words, not their index terms.
func TestAliasSaidInTheDocumentsWords(t *testing.T) {
	t.Parallel()
	term := func(s string) string { return strings.Join(aliases.Terms(s), " ") }
	text := "The base16 encoding, also known as “hexadecimal”, uses the digits; see the Advanced Encryption Standard (AES)."
	for name, want := range map[string]string{
		"hexadecimal":                  "hexadecimal",
		"base16 encoding":              "base16 encoding",
		"Advanced Encryption Standard": "Advanced Encryption Standard",
		"AES":                          "AES",
		"Rijndael":                     "",
	} {
		if got := said(text, term(name)); got != want {
			t.Errorf("said(%q) = %q, want %q", term(name), got, want)
		}
	}
	a := Alias{Word: term("hexadecimal"), Other: term("base16 encoding"), DocName: "nettle.pdf", Page: 100, Sentence: 2328}.withWords(text)
	if got, want := a.String(), `"hexadecimal" is also "base16 encoding" (nettle.pdf, p. 100, sentence 2328)`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

// desManual names its cipher "DES3" in its text; only its index (the
// record TestAliasFromIndex gives) calls it "Triple-DES", and the one
// sentence of the section that says "triple" is where a question in the
// index's word lands first.
const desManual = "# 1 Ciphers\n\nCiphers keep secrets. Some are old.\n\n" +
	"## 1.1 DES\n\nDES is an old cipher with short keys.\n\nDES keys have parity bits.\n\nDES runs well in hardware.\n\n" +
	"DES has weak keys.\n\nDES blocks are eight octets.\n\nDES was broken by brute force.\n\nDES is defined in a header.\n\n" +
	"## 1.2 DES3\n\nThe triple construction chains three boxes.\n\nDES3 became a standard in 1998.\n\nDES3 boxes are wired in reverse.\n\n" +
	"# Notes\n\nThe notes follow.\n"

// A question in an index's word ("Triple-DES") reaches the sentences
// that use the section's word ("DES3") through the alias the index
// gives, said at the section's heading: kept because a candidate lies in
// that section, though not in the heading itself, and the plan names the
// section.
func TestAliasFromIndex(t *testing.T) {
	t.Parallel()
	_, docs := librarytest.TextLibrary(t, "manual.md", desManual)
	d := docs[0]
	heading := -1
	for _, s := range d.Sections {
		if h := d.Text[s.Heading.Start:s.Heading.End]; strings.Contains(h, "DES3") {
			heading = int(s.Sentence)
		}
	}
	if heading < 0 {
		t.Fatalf("no DES3 heading sentence among %+v", d.Sections)
	}
	term := textproc.Term
	// The record the index gives (docstore's indexaliases.go): a text
	// has no pages to resolve an index by, so it is given as mined.
	d.Aliases = []docstore.Alias{{Word: term("Triple"), Other: term("DES3"), Sentence: int32(heading)}}
	lib := libraryWith(t, d)
	var found []Alias
	ps, err := New(lib).Sentences(context.Background(), "When was Triple-DES adopted?", Options{K: 3, Aliases: func(f []Alias) { found = f }})
	if err != nil {
		t.Fatal(err)
	}
	standard := false
	for _, p := range ps {
		standard = standard || strings.Contains(p.Text, "DES3 became a standard")
	}
	if !standard || len(found) != 1 || found[0].Section != "1.2 DES3" || found[0].Sentence != heading {
		t.Fatalf("passages %v through %+v; want DES3's year through the index's alias at the heading of 1.2 DES3", ps, found)
	}
	if s := found[0].String(); !strings.Contains(s, `"1.2 DES3"`) || !strings.Contains(s, "index") || !strings.Contains(s, `"Triple`) {
		t.Errorf("the plan says %q, want the index and the section", s)
	}
}

// libraryWith is a new library holding d as given, its aliases the
// records it carries.
func libraryWith(t *testing.T, d *docstore.Document) *docstore.Library {
	t.Helper()
	lib, err := docstore.Open(filepath.Join(t.TempDir(), "library.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	p, err := docstore.Prepare(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Write(p); err != nil {
		t.Fatal(err)
	}
	return lib
}

// A document's other name counts in that document only, and the answer
// names only the aliases that found what it quotes: the debugger
// manual's keep ("archive") does not send a question about archives to
// the archiver manual's sentences about keeping files.
func TestAliasWithinItsDocument(t *testing.T) {
	t.Parallel()
	lib, docs := librarytest.TextLibrary(t,
		"debugger.txt", "Symbols\n\nWhen enabled, keep (\"archive\") symbols of unloaded code.\n\nKeep symbols of unloaded code to read its stack traces later.\n\nKeep them small.\n\nKeep logs too.\n",
		"archiver.txt", "Archives\n\nAn archive holds many files in one.\n\nTo unpack an archive, run the unpack command on it.\n\nSome say so.\n\nKeep a copy elsewhere.\n")
	var found []Alias
	ps, err := New(lib).Sentences(t.Context(), "How do I unpack an archive?", Options{K: 10, Aliases: func(f []Alias) { found = f }})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Doc == docs[1].ID && p.Scores.BM25 > 0 && p.Text == "Keep a copy elsewhere." {
			t.Errorf("passage %q reached through the debugger manual's alias", p.Text)
		}
	}
	if len(found) != 1 || found[0].Doc != docs[0].ID {
		t.Errorf("aliases named %v, want the debugger manual's, which found its keep sentences", found)
	}
}
