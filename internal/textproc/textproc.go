// Package textproc holds the text analysis shared by the index, retrieval and
// citation verification: word spans, index terms (case-folded, stop words
// removed, English-stemmed, CJK as character bigrams) and token estimates.
//
// Everything that compares a question or a statement with document text goes
// through this package, so the index and the verifier never disagree about
// what a word is.
package textproc

import (
	"hash/maphash"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// Words calls fn with the byte range of every word in text, in order. A word
// is a maximal run of letters, digits and combining marks; a '.' or ',' between
// two digits stays inside the word ("3.14", "1,000") and an apostrophe between
// two letters too ("don't"). A run of CJK characters is one word per
// character, since CJK text has no spaces to find words by.
func Words(text string, fn func(start, end int)) {
	start := -1
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case IsCJK(r):
			if start >= 0 {
				fn(start, i)
				start = -1
			}
			fn(i, i+size)
		case isWordRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0 && joinsWord(text, start, i, r):
			// inside the word: "3.14", "don't"
		default:
			if start >= 0 {
				fn(start, i)
				start = -1
			}
		}
		i += size
	}
	if start >= 0 {
		fn(start, len(text))
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// joinsWord reports whether punctuation r at text[i] continues the word that
// started at start: a decimal point or thousands separator between digits, or
// an apostrophe between letters.
func joinsWord(text string, start, i int, r rune) bool {
	if i+1 >= len(text) {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(text[start:i])
	next, _ := utf8.DecodeRuneInString(text[i+1:])
	switch r {
	case '.', ',':
		return isDigit(prev) && isDigit(next)
	case '\'', '’':
		return unicode.IsLetter(prev) && unicode.IsLetter(next)
	}
	return false
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// IsCJK reports whether r is a Han, Hiragana, Katakana or Hangul character.
func IsCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// Terms returns the index terms of text, in order, with repeats.
func Terms(text string) []string { return AppendTerms(nil, text) }

// AppendTerms appends the index terms of text to dst: each word case-folded,
// stop words dropped, Latin words stemmed, and runs of CJK characters as
// overlapping character bigrams (a lone character stands as itself).
func AppendTerms(dst []string, text string) []string {
	var cjkRun []int // start offsets of the current CJK run's characters
	flushCJK := func() {
		switch len(cjkRun) {
		case 0:
		case 1:
			_, n := utf8.DecodeRuneInString(text[cjkRun[0]:])
			dst = append(dst, text[cjkRun[0]:cjkRun[0]+n])
		default:
			for j := 0; j+1 < len(cjkRun); j++ {
				_, n := utf8.DecodeRuneInString(text[cjkRun[j+1]:])
				dst = append(dst, text[cjkRun[j]:cjkRun[j+1]+n])
			}
		}
		cjkRun = cjkRun[:0]
	}
	Words(text, func(s, e int) {
		r, n := utf8.DecodeRuneInString(text[s:e])
		if n == e-s && IsCJK(r) {
			if len(cjkRun) > 0 && cjkRun[len(cjkRun)-1]+utf8.RuneLen(r) != s {
				// not adjacent to the previous character: a new run
				flushCJK()
			}
			cjkRun = append(cjkRun, s)
			return
		}
		flushCJK()
		if t := Term(text[s:e]); t != "" {
			dst = append(dst, t)
		}
	})
	flushCJK()
	return dst
}

// Term returns the index term for one word, or "" for a stop word.
func Term(word string) string {
	w := fold(word)
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if w == "" || IsStopWord(w) {
		return ""
	}
	return Stem(w)
}

// fold lower-cases a word and folds it to its base letters, fast for
// ASCII: "Zürich" is "zurich", "façade" "facade", "ﬁle" "file", "ＡＢＣ"
// "abc", "Straße" "strasse". A search for the word without its accents
// finds it, and the other way round.
func fold(w string) string {
	upper := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return foldUnicode(w)
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if upper {
		return strings.ToLower(w)
	}
	return w
}

// baseLetters are the letters NFKD leaves whole that readers take for
// others ("ø" for "o"), lower case.
var baseLetters = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i", 'ħ': "h",
}

// foldUnicode is fold for a word with letters beyond ASCII: each is
// decomposed (NFKD: accents split off, ligatures and full-width forms
// mapped to their letters), its combining marks dropped, and lower-cased.
// CJK characters are kept as they are: NFKD would split Hangul syllables
// and kana with voicing marks into other characters.
func foldUnicode(w string) string {
	var b strings.Builder
	b.Grow(len(w))
	var buf [32]byte
	for _, r := range w {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(unicode.ToLower(r))
			continue
		case IsCJK(r):
			b.WriteRune(r)
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		for _, d := range string(norm.NFKD.Append(buf[n:n], buf[:n]...)) {
			if unicode.Is(unicode.Mn, d) {
				continue
			}
			d = unicode.ToLower(d)
			if base, ok := baseLetters[d]; ok {
				b.WriteString(base)
				continue
			}
			b.WriteRune(d)
		}
	}
	return b.String()
}

// ASCIILower lower-cases the ASCII letters of s and leaves every other
// byte as it is, so offsets into the result are offsets into s.
func ASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Fold returns the folded form of a word, as terms use it: lower case,
// accents and compatibility forms folded to base letters ("Zürich" is
// "zurich"). The result may be longer or shorter than word: never use an
// offset into it as an offset into word.
func Fold(word string) string { return fold(word) }

// stemCache remembers stems: words repeat, and a stem costs a
// microsecond. It is bounded (a 500 MB text has millions of distinct
// words): a shard that fills is emptied and fills again with the words in
// use. Shards keep the adds of many goroutines from queueing on one lock.
var stemCache [64]struct {
	sync.RWMutex
	m map[string]string
}

// stemShard is how many stems a shard holds before it is emptied.
const stemShard = 1024

var stemSeed = maphash.MakeSeed()

// Stem returns the English (Snowball/Porter2) stem of a lower-cased word.
// Words with digits or non-Latin letters are returned unchanged.
func Stem(w string) string {
	sh := &stemCache[maphash.String(stemSeed, w)%uint64(len(stemCache))]
	sh.RLock()
	v, ok := sh.m[w]
	sh.RUnlock()
	if ok {
		return v
	}
	s := w
	if stemmable(w) {
		s = english.Stem(w, false)
		if s == "" {
			s = w
		}
	}
	// Clone so the cache does not pin the (possibly huge) text w came from.
	k := strings.Clone(w)
	if s == w {
		s = k
	} else {
		s = strings.Clone(s)
	}
	sh.Lock()
	if sh.m == nil || len(sh.m) >= stemShard {
		sh.m = map[string]string{} // grown as words come: a short run needs few
	}
	sh.m[k] = s
	sh.Unlock()
	return s
}

func stemmable(w string) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || c == '\'') {
			return false
		}
	}
	return true
}

// EstimateTokens estimates the number of model tokens in text without a
// tokenizer: OpenAI's rule of thumb of four bytes of English per token for
// everything but CJK, and one token per CJK character (GLM and Llama 3
// tokenizers spend roughly one on each). Chunk sizes and context budgets are
// counted with it, so they are estimates too, typically within 15%.
func EstimateTokens(text string) int {
	var c TokenCounter
	c.Write(text)
	return c.Tokens()
}

// TokenCounter is EstimateTokens over text that arrives in pieces: a
// character cut between two pieces counts as if whole.
type TokenCounter struct {
	other, cjk int
	partial    []byte // a character cut at the end of the last piece
}

// Write counts the next piece.
func (c *TokenCounter) Write(text string) {
	if len(c.partial) > 0 {
		text = string(c.partial) + text
		c.partial = c.partial[:0]
	}
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			c.other++
			i++
			continue
		}
		if !utf8.FullRuneInString(text[i:]) {
			c.partial = append(c.partial, text[i:]...)
			return
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		c.count(r, n)
		i += n
	}
}

func (c *TokenCounter) count(r rune, n int) {
	if IsCJK(r) {
		c.cjk++
	} else {
		c.other += n
	}
}

// Tokens is the estimate of everything written so far.
func (c *TokenCounter) Tokens() int {
	return (c.other+len(c.partial)+3)/4 + c.cjk
}
