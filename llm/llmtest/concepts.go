package llmtest

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"math"

	"slices"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
)

// Concepts is the scripted models' knowledge of synonyms: groups of words
// and phrases that mean the same thing ({"car", "automobile", "vehicle"};
// {"purchases of property, plant and equipment", "capital expenditure",
// "capex"}).
//
// A real embedding model or cross-encoder knows that "capex" and "capital
// expenditure" are one idea from its training; a hashed bag of words does
// not, so without concepts two texts sharing no word embed as strangers and
// no test can show retrieval finding a paraphrase. A test states the
// synonyms its documents and questions rely on, and only those: the scripted
// model knows exactly what the test gave it and nothing else.
//
// Members are matched on index terms (textproc.Terms: case-folded, stop
// words dropped, stemmed), so "Purchases of Property, Plant, and
// Equipment" matches the first group's phrase and "automobiles" matches
// "automobile". Where phrases overlap, the longest match wins.
//
// The zero value, and a nil *Concepts, know no synonyms.
type Concepts struct {
	// byFirst holds the member phrases by their first term, longest first.
	byFirst map[string][]conceptPhrase
}

type conceptPhrase struct {
	terms []string
	// key names the concept: its group's first member's terms. It starts
	// with a NUL byte so it can never be a term.
	key string
}

// conceptCoords is how many coordinates a concept spreads over, each
// getting ±1, so a concept weighs what two terms weigh: the idea a
// paraphrase names is what a sentence is about, and real embedding models
// let it dominate the few other words of a short text.
const conceptCoords = 4

// NewConcepts builds the table from groups of synonyms. Each group needs at
// least two members, every member an index term (not only stop words), and
// no phrase may be in two groups.
func NewConcepts(groups ...[]string) (*Concepts, error) {
	return buildConcepts(groups, func(i int) string { return fmt.Sprintf("concept group %d", i+1) })
}

// ReadConcepts reads concept groups from r, one group a line, members
// separated by "|"; blank lines and lines starting with "#" are skipped:
//
//	# synonyms the contracts test relies on
//	governing law | laws of the state | construed under the laws
//	capex | capital expenditure | purchases of property, plant and equipment
func ReadConcepts(r io.Reader) (*Concepts, error) {
	var groups [][]string
	var lines []int
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		groups = append(groups, strings.Split(line, "|"))
		lines = append(lines, n)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return buildConcepts(groups, func(i int) string { return fmt.Sprintf("line %d", lines[i]) })
}

func buildConcepts(groups [][]string, where func(i int) string) (*Concepts, error) {
	c := &Concepts{byFirst: map[string][]conceptPhrase{}}
	owner := map[string]int{} // a phrase's terms, joined, to its group
	for i, g := range groups {
		var key string
		members := 0
		for _, m := range g {
			m = strings.TrimSpace(m)
			if m == "" {
				return nil, fmt.Errorf("%s: an empty member", where(i))
			}
			terms := textproc.Terms(m)
			if len(terms) == 0 {
				return nil, fmt.Errorf("%s: %q has only stop words, which no text is matched on", where(i), m)
			}
			joined := strings.Join(terms, " ")
			if j, ok := owner[joined]; ok {
				if j == i {
					continue // a repeat within the group, or a variant with the same terms
				}
				return nil, fmt.Errorf("%s: %q is also in %s", where(i), m, where(j))
			}
			owner[joined] = i
			if key == "" {
				key = "\x00" + joined
			}
			c.byFirst[terms[0]] = append(c.byFirst[terms[0]], conceptPhrase{terms: terms, key: key})
			members++
		}
		if members < 2 {
			return nil, fmt.Errorf("%s: a group needs at least two different members", where(i))
		}
	}
	for _, ps := range c.byFirst {
		slices.SortStableFunc(ps, func(a, b conceptPhrase) int { return len(b.terms) - len(a.terms) })
	}
	return c, nil
}

// units calls fn with each unit of meaning in terms, in order: a concept
// (by its key) where a member phrase matches, else the term itself.
func (c *Concepts) units(terms []string, fn func(unit string, concept bool)) {
	for i := 0; i < len(terms); {
		matched := 0
		if c != nil {
			for _, p := range c.byFirst[terms[i]] {
				if len(p.terms) <= len(terms)-i && slices.Equal(p.terms, terms[i:i+len(p.terms)]) {
					fn(p.key, true)
					matched = len(p.terms)
					break
				}
			}
		}
		if matched == 0 {
			fn(terms[i], false)
			matched = 1
		}
		i += matched
	}
}

// Embed returns the vector the scripted embedding model gives text with
// these concepts: as the package's Embed does, except that each matched
// member phrase adds its concept's coordinates instead of its terms', so
// texts that say the same thing in other words get a high cosine
// similarity. A text that matches no member gets exactly Embed's vector.
func (c *Concepts) Embed(text string, dim int) []float32 {
	v := make([]float32, dim)
	if dim <= 0 {
		return v
	}
	c.units(textproc.Terms(text), func(u string, concept bool) {
		if !concept {
			coord, sign := hashCoord(u)
			v[coord%uint64(dim)] += sign
			return
		}
		const w = 1
		for j := range conceptCoords {
			coord, sign := hashCoord(fmt.Sprintf("%s\x00%d", u, j))
			v[coord%uint64(dim)] += sign * w
		}
	})
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	if sum > 0 {
		inv := float32(1 / math.Sqrt(sum))
		for i := range v {
			v[i] *= inv
		}
	}
	return v
}

// hashCoord hashes s to a coordinate (before the modulus) and a sign.
func hashCoord(s string) (uint64, float32) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	x := h.Sum64()
	if x>>63 == 1 {
		return x, -1
	}
	return x, 1
}

// overlapBonus is the most the scripted reranker adds for exact matches.
const overlapBonus = 0.1

// Relevance is the score the scripted reranker gives doc for query: the
// cosine similarity of their Embed vectors (their meaning, through the
// concepts) plus up to 0.1 for the share of the query's distinct terms that
// doc contains word for word, since a cross-encoder rewards exact matches
// too. Scores fall between -1 and 1.1; a text without terms scores 0.
func (c *Concepts) Relevance(query, doc string, dim int) float64 {
	qv, dv := c.Embed(query, dim), c.Embed(doc, dim)
	var dot float64
	for i := range qv {
		dot += float64(qv[i]) * float64(dv[i])
	}
	want := map[string]bool{}
	for _, t := range textproc.Terms(query) {
		want[t] = true
	}
	if len(want) == 0 {
		return dot
	}
	found := map[string]bool{}
	for _, t := range textproc.Terms(doc) {
		if want[t] {
			found[t] = true
		}
	}
	return dot + overlapBonus*float64(len(found))/float64(len(want))
}
