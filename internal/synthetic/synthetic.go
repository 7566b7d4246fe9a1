// Package synthetic writes seeded text with the statistics of real
// documents, for the scale benchmark (bench/scale) and for tests that need
// more documents than the repository holds: documents of log-normal size
// (median 4 KB, a long tail to ~200 KB, like a folder of articles and
// notes) in a vocabulary whose word frequencies follow Zipf's law, with
// English function words at their share of running text (about 40%).
// Each document has a topic — a few dozen words it uses far more often
// than the rest of the library does — so document frequencies are bursty
// as in real text, and the vocabulary grows with the library (Heaps' law)
// because topic words come from a long tail. Documents have numbered
// headings and paragraphs, and sentences of 6 to 30 words. The same seed
// writes the same text.
package synthetic

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// function words, roughly in order of frequency; they make up a share of
// the text as in English prose.
var functionWords = strings.Fields(`the of and to a in is that for it as was with be by on not he this are or
his from at which but have an they you were her she there been one all we their has would when if so no
will can more other its may into than them these some could only such also then about most where after
should must those being do over each both between through while because under very does same during`)

// syllables build the content vocabulary: pronounceable, stemmable words.
var (
	onsets  = strings.Fields("b c d f g h j k l m n p r s t v w z br cr dr fr gr pr tr bl cl fl gl pl sl st sp sc sk sm sn sw th sh ch qu")
	nuclei  = strings.Fields("a e i o u a e i o ai ea ee ie oa ou io")
	codas   = []string{"", "", "", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "rt", "ck", "ng", "x"}
	endings = []string{"", "", "", "", "s", "ed", "ing", "er", "ion", "al", "ly", "ment", "ness", "ity", "ive", "able"}
)

// Corpus writes documents and questions from one seed. It is not safe
// for concurrent use.
type Corpus struct {
	rng   *rand.Rand
	vocab []string   // content words by rank
	zipf  *rand.Zipf // over vocab
}

// Vocabulary is the content vocabulary of New: enough that a
// 100,000-document library still meets new words.
const Vocabulary = 400_000

// New returns a corpus of seed, with a content vocabulary of vocabSize
// words (Vocabulary for the benchmark's; a test may take fewer, which is
// quicker to make).
func New(seed uint64, vocabSize int) *Corpus {
	vocabSize = max(vocabSize, 1000)
	rng := rand.New(rand.NewPCG(seed, 0x5ca1e))
	c := &Corpus{rng: rng}
	seen := make(map[string]bool, vocabSize)
	for _, w := range functionWords {
		seen[w] = true
	}
	for len(c.vocab) < vocabSize {
		w := c.word()
		if len(w) < 3 || seen[w] {
			continue
		}
		seen[w] = true
		c.vocab = append(c.vocab, w)
	}
	// Frequent words are short (Zipf's law of abbreviation): rank by
	// length, loosely.
	slices.SortStableFunc(c.vocab, func(a, b string) int { return len(a)/3 - len(b)/3 })
	c.zipf = rand.NewZipf(rng, 1.07, 2, uint64(vocabSize-1))
	return c
}

// word makes a new content word of one to four syllables.
func (c *Corpus) word() string {
	var b strings.Builder
	n := 1
	switch r := c.rng.IntN(10); {
	case r >= 8:
		n = 3
	case r >= 4:
		n = 2
	}
	for range n {
		b.WriteString(onsets[c.rng.IntN(len(onsets))])
		b.WriteString(nuclei[c.rng.IntN(len(nuclei))])
		b.WriteString(codas[c.rng.IntN(len(codas))])
	}
	b.WriteString(endings[c.rng.IntN(len(endings))])
	return b.String()
}

// DocSize draws a document size in bytes: log-normal around 4 KB,
// between 300 bytes and 200 KB.
func (c *Corpus) DocSize() int {
	s := math.Exp(math.Log(4096) + 1.0*c.rng.NormFloat64())
	return int(min(max(s, 300), 200_000))
}

// topic is what one document is about: words it repeats.
type topic struct {
	words []string
	name  string // a proper name the document mentions
}

func (c *Corpus) topic() topic {
	t := topic{words: make([]string, 30)}
	for i := range t.words {
		// Topic words come from the middle and tail of the vocabulary,
		// where the library's rare words are.
		t.words[i] = c.vocab[200+c.rng.IntN(len(c.vocab)-200)]
	}
	n := c.vocab[c.rng.IntN(len(c.vocab)/8)+len(c.vocab)/400]
	t.name = strings.ToUpper(n[:1]) + n[1:]
	return t
}

// sentence writes one sentence of the topic's text.
func (c *Corpus) sentence(b *strings.Builder, t topic) {
	n := 6 + c.rng.IntN(25)
	for i := range n {
		var w string
		switch r := c.rng.Float64(); {
		case r < 0.40:
			w = functionWords[min(int(c.rng.ExpFloat64()*12), len(functionWords)-1)]
		case r < 0.52:
			w = t.words[c.rng.IntN(len(t.words))]
		case r < 0.54:
			w = t.name
		case r < 0.55:
			w = fmt.Sprint(c.rng.IntN(2100))
		default:
			w = c.vocab[c.zipf.Uint64()]
		}
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		if i < n-1 && c.rng.IntN(12) == 0 {
			b.WriteByte(',')
		}
	}
	b.WriteString(". ")
}

// Document writes a document of about size bytes: a title, numbered
// sections with headings, paragraphs of three to eight sentences.
func (c *Corpus) Document(w io.Writer, size int) error {
	t := c.topic()
	var b strings.Builder
	b.Grow(size + 512)
	fmt.Fprintf(&b, "%s %s of %s\n\n", title(t.words[0]), title(t.words[1]), t.name)
	sec := 0
	for b.Len() < size {
		if sec == 0 || c.rng.IntN(5) == 0 {
			sec++
			fmt.Fprintf(&b, "%d %s %s\n\n", sec, title(t.words[c.rng.IntN(len(t.words))]), c.vocab[c.zipf.Uint64()])
		}
		for range 3 + c.rng.IntN(6) {
			c.sentence(&b, t)
		}
		b.WriteString("\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// BigText writes about size bytes of one long manual-like text, a
// chapter at a time (so a gigabyte takes no gigabyte of memory):
// chapters of a topic each, numbered sections, paragraphs.
func (c *Corpus) BigText(w io.Writer, size int64) error {
	var written int64
	for chapter := 1; written < size; chapter++ {
		t := c.topic()
		var b strings.Builder
		fmt.Fprintf(&b, "Chapter %d %s %s\n\n", chapter, title(t.words[0]), t.name)
		for sec := 1; sec <= 20; sec++ {
			fmt.Fprintf(&b, "%d.%d %s %s\n\n", chapter, sec, title(t.words[c.rng.IntN(len(t.words))]), c.vocab[c.zipf.Uint64()])
			for range 4 + c.rng.IntN(6) {
				for range 3 + c.rng.IntN(6) {
					c.sentence(&b, t)
				}
				b.WriteString("\n\n")
			}
		}
		n, err := io.WriteString(w, b.String())
		written += int64(n)
		if err != nil {
			return err
		}
	}
	return nil
}

// QuestionAbout makes a question (Question) about one of a document's
// sentences, drawn at random; "" when the document has none long enough.
func (c *Corpus) QuestionAbout(doc string) string {
	var sents []string
	for s := range strings.SplitSeq(doc, ". ") {
		if len(strings.Fields(s)) >= 6 {
			sents = append(sents, s)
		}
	}
	if len(sents) == 0 {
		return ""
	}
	return c.Question(sents[c.rng.IntN(len(sents))])
}

// Question makes a question about a sentence: a question word and three
// to six of the sentence's content words, as a user would ask it.
func (c *Corpus) Question(sentence string) string {
	var content []string
	for _, w := range strings.Fields(strings.Trim(sentence, ". ")) {
		w = strings.Trim(w, ",")
		if len(w) > 3 && !isFunctionWord(strings.ToLower(w)) {
			content = append(content, strings.ToLower(w))
		}
	}
	c.rng.Shuffle(len(content), func(i, j int) { content[i], content[j] = content[j], content[i] })
	content = content[:min(len(content), 3+c.rng.IntN(4))]
	starts := []string{"What is the", "How does the", "Which", "Why is the", "Where does the", "What are"}
	return starts[c.rng.IntN(len(starts))] + " " + strings.Join(content, " ") + "?"
}

func isFunctionWord(w string) bool {
	for _, f := range functionWords {
		if f == w {
			return true
		}
	}
	return false
}

func title(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
