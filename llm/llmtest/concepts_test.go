package llmtest_test

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/citelens/citelens/llm/llmtest"
)

// fingerprint is the start of a SHA-256 of a vector's float32 bits.
func fingerprint(v []float32) string {
	h := sha256.New()
	for _, f := range v {
		binary.Write(h, binary.LittleEndian, math.Float32bits(f))
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

var capex = []string{"capex", "capital expenditure", "purchases of property, plant and equipment"}

// The vectors Embed gave before concepts existed, computed with that code:
// tests across the repository compare stored vectors with Embed's.
func TestEmbedVectorsUnchanged(t *testing.T) {
	t.Parallel()
	golden := []struct {
		text string
		dim  int
		want string
	}{
		{"The bridge across the river was built in 1890.", 64, "2416999fbbc909b3"},
		{"The bridge across the river was built in 1890.", 256, "a391d20660ac3ada"},
		{"Purchases of property, plant and equipment were $4.2 billion in 2018.", 64, "55aef953e52b1afd"},
		{"Purchases of property, plant and equipment were $4.2 billion in 2018.", 256, "699106621ae77d49"},
		{"The car was parked outside.", 64, "55100b00b2373523"},
		{"The car was parked outside.", 256, "f49c7a7755a7d5ed"},
	}
	srv := llmtest.New(t, llmtest.WithConcepts([]string{"automobile", "motor vehicle"}, []string{"river", "stream"}))
	for _, g := range golden {
		if got := fingerprint(llmtest.Embed(g.text, g.dim)); got != g.want {
			t.Errorf("Embed(%q, %d) changed: %s, was %s", g.text, g.dim, got, g.want)
		}
		// A server whose concepts the text does not mention embeds it as
		// before.
		if g.dim == llmtest.DefaultDim && !strings.Contains(g.text, "river") {
			if got := fingerprint(srv.Embed(g.text)); got != g.want {
				t.Errorf("with unrelated concepts, %q embeds to %s, not %s", g.text, got, g.want)
			}
		}
	}
}

func TestConceptsMakeParaphrasesSimilar(t *testing.T) {
	t.Parallel()
	q := "What was the capital expenditure in 2018?"
	para := "Purchases of property, plant and equipment were $4.2 billion in 2018."
	unrelated := "Penguins eat krill and small fish."
	lexical := "Capital punishment was abolished in 2018."
	srv := llmtest.New(t, llmtest.WithConcepts(capex, []string{"car", "automobile"}))

	plain := cosine(llmtest.Embed(q, llmtest.DefaultDim), llmtest.Embed(para, llmtest.DefaultDim))
	meant := cosine(srv.Embed(q), srv.Embed(para))
	if plain > 0.3 || meant < 0.5 {
		t.Fatalf("paraphrase: cosine %.3f without concepts, %.3f with; want low, then high", plain, meant)
	}
	// Hashing puts an unrelated text's terms on a concept's coordinates now
	// and then, as it does with two terms, so unrelated is not quite 0.
	if c := cosine(srv.Embed(q), srv.Embed(unrelated)); math.Abs(c) > 0.3 || c > meant/2 {
		t.Fatalf("unrelated text: cosine %.3f", c)
	}
	// Every member of a group is one meaning; plurals are matched by stem.
	if c := cosine(srv.Embed("capex"), srv.Embed("Purchases of Property, Plant, and Equipment")); c < 0.999 {
		t.Fatalf("two members of one group: cosine %.3f", c)
	}
	if c := cosine(srv.Embed("used cars"), srv.Embed("a used automobile")); c < 0.999 {
		t.Fatalf("cars and automobile: cosine %.3f", c)
	}
	// The reranker understands the paraphrase, and still prefers exact
	// words between two texts of one meaning.
	if p, l := srv.Relevance(q, para), srv.Relevance(q, lexical); p <= l {
		t.Fatalf("reranker: paraphrase %.3f, lexical lookalike %.3f", p, l)
	}
	if exact, para := srv.Relevance("capex in 2018", "capex in 2018"), srv.Relevance("capex in 2018", "capital expenditure in 2018"); exact <= para || para < 0.99 {
		t.Fatalf("exact %.3f, paraphrase %.3f", exact, para)
	}
	// Without concepts the lookalike wins, which is what the concepts are for.
	bare := llmtest.New(t)
	if p, l := bare.Relevance(q, para), bare.Relevance(q, lexical); p >= l {
		t.Fatalf("without concepts: paraphrase %.3f, lexical %.3f", p, l)
	}
}

func TestLongestConceptWins(t *testing.T) {
	t.Parallel()
	c, err := llmtest.NewConcepts([]string{"plant", "factory"}, capex)
	if err != nil {
		t.Fatal(err)
	}
	long := "purchases of property, plant and equipment"
	if got := cosine(c.Embed(long, 256), c.Embed("capex", 256)); got < 0.999 {
		t.Fatalf("the long phrase is not capex: %.3f", got)
	}
	if got := cosine(c.Embed("the plant in Ohio", 256), c.Embed("the factory in Ohio", 256)); got < 0.999 {
		t.Fatalf("plant and factory: %.3f", got)
	}
	if got := cosine(c.Embed(long, 256), c.Embed("factory", 256)); got > 0.3 {
		t.Fatalf("the long phrase also counted as plant: %.3f", got)
	}
}

func TestBadConcepts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		groups [][]string
		want   string
	}{
		{[][]string{{"car"}}, "concept group 1: a group needs at least two"},
		{[][]string{{"car", "cars"}}, "at least two different members"},
		{[][]string{{"car", "automobile"}, {"the", "of"}}, `concept group 2: "the" has only stop words`},
		{[][]string{{"car", "automobile"}, {"vehicle", "Automobiles"}}, `concept group 2: "Automobiles" is also in concept group 1`},
		{[][]string{{"car", " "}}, "an empty member"},
	} {
		if _, err := llmtest.NewConcepts(tc.groups...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.groups, err, tc.want)
		}
	}
	_, err := llmtest.ReadConcepts(strings.NewReader("# synonyms\n\ncar | automobile\nvehicle|automobiles\n"))
	if err == nil || !strings.Contains(err.Error(), `line 4: "automobiles" is also in line 3`) {
		t.Fatalf("file: %v", err)
	}
	c, err := llmtest.ReadConcepts(strings.NewReader("capex | capital expenditure | purchases of property, plant and equipment\n"))
	if err != nil || cosine(c.Embed("capex", 64), c.Embed("capital expenditures", 64)) < 0.999 {
		t.Fatalf("file: %v", err)
	}
}
