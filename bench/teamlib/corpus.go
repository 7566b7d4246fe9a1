// Package teamlib measures a team's library on PostgreSQL against the same
// library in a bbolt file (issue 30, item 6): the build of 10,000
// documents, ask's latency, add's throughput with one and four writers,
// ls, the terminal UI's first frame, and the index's two possible layouts
// in the database (citelens's segments as rows of the key-value tables,
// against a relational postings table queried with SQL).
//
// The measurements are benchmarks (teamlib_test.go); README.md says how
// to run them and what they found. This file makes their corpus: seeded
// documents recombined from the real text in the repository's testdata
// (manuals, R's introduction, Wikipedia paragraphs), so that sentences,
// their lengths and their words are real English, with a topic's words
// of its own mixed into each document so that postings spread as in a
// real library rather than repeating a few source texts.
package teamlib

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// sources are the real texts the corpus recombines, relative to the
// module's root.
var sources = []string{
	"testdata/manuals-qa/docs/R-admin.txt",
	"testdata/manuals-qa/docs/R-data.txt",
	"testdata/manuals-qa/docs/gnuplot.txt",
	"testdata/manuals-qa/docs/libtasn1.txt",
	"testdata/manuals-qa/docs/shared-mime-info-spec.txt",
	"testdata/rintro-qa/docs/R-intro.txt",
	"testdata/hotpotqa53/docs/hotpotqa53.txt",
}

// questionSets are the questions asked, each set's first n: questions
// written about the sources above, so the extractive strategy finds
// their answers' sentences scattered over many generated documents.
var questionSets = []struct {
	path string
	n    int
}{
	{"testdata/manuals-qa/questions.jsonl", 20},
	{"testdata/rintro-qa/questions.jsonl", 8},
	{"testdata/hotpotqa53/questions.jsonl", 8},
}

// corpusVersion changes when the generator writes other text for the same
// seed, so a cached corpus of an older generator is not reused.
const corpusVersion = 1

// Corpus is a generated set of documents on disk.
type Corpus struct {
	// Dir holds the documents, doc-000001.txt and on.
	Dir string
	// Paths are the documents' files, in order.
	Paths []string
}

// sourceText is the sources' sentences, each source's in order.
type sourceText struct {
	sentences [][]string // per source
}

// loadSources reads and splits the sources under root.
func loadSources(root string) (*sourceText, error) {
	st := &sourceText{}
	for _, rel := range sources {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, fmt.Errorf("teamlib: reading the corpus's source text: %w", err)
		}
		st.sentences = append(st.sentences, splitSentences(string(b)))
	}
	return st, nil
}

// splitSentences cuts text into sentences of 30 to 400 bytes with their
// white space folded: a full stop, question or exclamation mark followed
// by a space ends one, as does a blank line (a heading, a list item).
func splitSentences(text string) []string {
	var out []string
	keep := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if len(s) >= 30 && len(s) <= 400 {
			out = append(out, s)
		}
	}
	for _, para := range strings.Split(text, "\n\n") {
		start := 0
		for i := 0; i < len(para)-1; i++ {
			if (para[i] == '.' || para[i] == '?' || para[i] == '!') && unicode.IsSpace(rune(para[i+1])) {
				keep(para[start : i+1])
				start = i + 1
			}
		}
		keep(para[start:])
	}
	return out
}

// syllables make the topic words: pronounceable, and rare enough not to
// meet the sources' words.
var (
	onsets = strings.Fields("b c d f g h k l m n p r s t v z br cr dr fr gr pr tr bl cl fl gl pl sl st sp sk sn th sh ch")
	nuclei = strings.Fields("a e i o u ai ea ee ie oa ou io")
	codas  = []string{"", "", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "rk", "x"}
)

// topicWord is a made-up word of two or three syllables.
func topicWord(r *rand.Rand) string {
	var b strings.Builder
	for range 2 + r.IntN(2) {
		b.WriteString(onsets[r.IntN(len(onsets))])
		b.WriteString(nuclei[r.IntN(len(nuclei))])
		b.WriteString(codas[r.IntN(len(codas))])
	}
	return b.String()
}

// generator writes documents from one seed.
type generator struct {
	r     *rand.Rand
	src   *sourceText
	vocab []string   // the topic vocabulary
	zipf  *rand.Zipf // over vocab: a few topics are common, most rare
}

func newGenerator(src *sourceText, seed uint64) *generator {
	r := rand.New(rand.NewPCG(seed, 0x7ea3))
	g := &generator{r: r, src: src}
	seen := map[string]bool{}
	for len(g.vocab) < 20000 {
		if w := topicWord(r); !seen[w] {
			seen[w] = true
			g.vocab = append(g.vocab, w)
		}
	}
	g.zipf = rand.NewZipf(r, 1.1, 2, uint64(len(g.vocab)-1))
	return g
}

// document writes document n (1-based): a title of its topic's words,
// then paragraphs from a run of one source's consecutive sentences (a
// passage read in order, as in a real document), a few sentences from
// anywhere, and about one word in twelve of four letters or more
// replaced by one of the topic's words.
func (g *generator) document(n int) string {
	r := g.r
	topic := make([]string, 4+r.IntN(5))
	for i := range topic {
		topic[i] = g.vocab[g.zipf.Uint64()]
	}
	var sents []string
	s := g.src.sentences[r.IntN(len(g.src.sentences))]
	run := 6 + r.IntN(25)
	start := r.IntN(max(len(s)-run, 1))
	sents = append(sents, s[start:min(start+run, len(s))]...)
	for range r.IntN(6) {
		o := g.src.sentences[r.IntN(len(g.src.sentences))]
		sents = append(sents, o[r.IntN(len(o))])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Report %d: %s %s\n\n", n, strings.ToUpper(topic[0][:1])+topic[0][1:], strings.Join(topic[1:3], " "))
	for i, sent := range sents {
		words := strings.Fields(sent)
		for j, w := range words {
			if len(w) >= 4 && isLetters(w) && r.IntN(12) == 0 {
				words[j] = topic[r.IntN(len(topic))]
			}
		}
		b.WriteString(strings.Join(words, " "))
		if i%5 == 4 || i == len(sents)-1 {
			b.WriteString("\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// isLetters reports whether w is letters only (a word to replace; not a
// number, a name with punctuation or code).
func isLetters(w string) bool {
	for _, c := range w {
		if !unicode.IsLetter(c) {
			return false
		}
	}
	return true
}

// MakeCorpus returns n documents of seed under cache (made there unless a
// complete corpus of the same n, seed and generator is there already),
// from the sources under root, the module's folder.
func MakeCorpus(root, cache string, n int, seed uint64) (*Corpus, error) {
	dir := filepath.Join(cache, fmt.Sprintf("corpus-v%d-seed%d-n%d", corpusVersion, seed, n))
	c := &Corpus{Dir: dir}
	for i := range n {
		c.Paths = append(c.Paths, filepath.Join(dir, fmt.Sprintf("doc-%06d.txt", i+1)))
	}
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		return c, nil
	}
	src, err := loadSources(root)
	if err != nil {
		return nil, err
	}
	// Written beside, then renamed: a run stopped halfway leaves no
	// corpus that looks complete.
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return nil, fmt.Errorf("teamlib: %w", err)
	}
	tmp, err := os.MkdirTemp(cache, "making-")
	if err != nil {
		return nil, fmt.Errorf("teamlib: %w", err)
	}
	defer os.RemoveAll(tmp)
	g := newGenerator(src, seed)
	for i := range n {
		if err := os.WriteFile(filepath.Join(tmp, filepath.Base(c.Paths[i])), []byte(g.document(i+1)), 0o644); err != nil {
			return nil, fmt.Errorf("teamlib: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "complete"), nil, 0o644); err != nil {
		return nil, fmt.Errorf("teamlib: %w", err)
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("teamlib: %w", err)
	}
	return c, nil
}

// Questions returns the questions asked of every library, from the
// question sets under root.
func Questions(root string) ([]string, error) {
	var qs []string
	for _, set := range questionSets {
		b, err := os.ReadFile(filepath.Join(root, set.path))
		if err != nil {
			return nil, fmt.Errorf("teamlib: reading questions: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for n := 0; n < set.n && sc.Scan(); n++ {
			var q struct{ Question string }
			if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
				return nil, fmt.Errorf("teamlib: %s: %w", set.path, err)
			}
			qs = append(qs, q.Question)
		}
	}
	return qs, nil
}
