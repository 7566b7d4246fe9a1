package retrieve

import (
	"github.com/citelens/citelens/internal/textproc"
)

// unit is one analysed sentence (or heading line): where the query's terms
// occur in it and what kinds of facts it holds.
type unit struct {
	length int     // index terms, as the index counts them
	words  int     // words, stop words included
	hits   []occ   // query-term occurrences in word order
	tf     []uint8 // per query term, saturating at 255
	terms  []string
	// answer-type evidence
	year, number, name bool
}

// occ is one occurrence of a query term: the term and its word position.
type occ struct {
	term int32
	pos  int32
}

// analyseUnit reads text against q. keepTerms keeps every term, for the
// near-duplicate test.
//
// compounds looks up the document's run-together words and their parts'
// terms (docstore.View.Compound): a part counts as an occurrence of its
// term at the word's position, as the index counts it.
func analyseUnit(q *query, text string, compounds func(word string) []string, keepTerms bool) *unit {
	return tokenise(text, compounds).against(q, keepTerms)
}

// tokens is a text read once for any query: its words' index terms and
// what each word is, so ranking the same sentences again for a wider
// query (the second hop, aliases, feedback) pays no second stemming.
type tokens struct {
	toks  []token
	words int // words, stop words included
	// numberWord: a number written as a word ("twenty", "half").
	numberWord bool
}

// token is one word of a text.
type token struct {
	term  string   // its index term, "" for a stop word
	parts []string // a run-together word's parts' terms
	pos   int32    // its word position
	// negated: it ends a negated compound ("linear" in "non-linear");
	// quantity: it starts with its digits; year: a year or a day after a
	// month; capital: a capitalised word after the first.
	negated, quantity, year, capital bool
}

// tokenise reads text's words.
func tokenise(text string, compounds func(word string) []string) *tokens {
	tk := &tokens{}
	pos := 0
	prevMonth := false
	textproc.Words(text, func(s, e int) {
		w := text[s:e]
		defer func() { pos++ }()
		tok := token{term: textproc.Term(w), pos: int32(pos)}
		if hasDigit(w) {
			tok.quantity = isDigit(w[0])
			tok.year = isYear(w) || prevMonth
		}
		folded := ""
		if tok.term == "" || len(w) <= 9 {
			folded = textproc.Fold(w)
		}
		prevMonth = months[folded]
		if numberWords[folded] {
			tk.numberWord = true
		}
		if tok.term != "" {
			tok.capital = pos > 0 && isCapitalised(w)
			tok.negated = s > 0 && negated(text, s) != ""
			tok.parts = compounds(w)
		}
		if tok.term != "" || tok.quantity || tok.year {
			tk.toks = append(tk.toks, tok)
		}
	})
	tk.words = pos
	return tk
}

// against is the text read against q.
func (tk *tokens) against(q *query, keepTerms bool) *unit {
	u := &unit{tf: make([]uint8, len(q.q.Terms)), words: tk.words, number: tk.numberWord}
	for i := range tk.toks {
		tok := &tk.toks[i]
		t := tok.term
		// A quantity starts with its digits ("2300k", "20ms", "10:1");
		// a name with digits in it ("bzip2", "sha256") is none, nor is a
		// number the question gives itself ("with -9").
		if tok.quantity && !q.has(t) {
			u.number = true
		}
		u.year = u.year || tok.year
		if t == "" {
			continue
		}
		if tok.capital {
			if _, inQuery := q.index[t]; !inQuery {
				u.name = true
			}
		}
		u.length++
		if keepTerms {
			u.terms = append(u.terms, t)
		}
		// "linear" in "non-linear" is not the question's "linear".
		if !tok.negated || q.negated[t] {
			u.hit(q, t, int(tok.pos))
		}
		for _, p := range tok.parts {
			u.length++
			u.hit(q, p, int(tok.pos))
		}
	}
	return u
}

// hit counts an occurrence of term t at word position pos if the query
// has it.
func (u *unit) hit(q *query, t string, pos int) {
	if i, ok := q.index[t]; ok {
		u.hits = append(u.hits, occ{term: int32(i), pos: int32(pos)})
		if u.tf[i] < 255 {
			u.tf[i]++
		}
	}
}

// wants reports whether u holds a fact of the kind the question asks for.
func (u *unit) wants(t AnswerType) bool {
	switch t {
	case TimeAnswer:
		return u.year
	case CountAnswer:
		return u.number
	case NameAnswer:
		return u.name
	}
	return false
}

// proximity is the best idf-weighted pair closeness among the query terms
// in u: for each pair of adjacent occurrences of different terms,
// min(weight)/distance, the best pair per term pair summed, normalised by
// the query's total weight. A sentence where the question's terms stand
// together scores high.
func (u *unit) proximity(q *query) float64 {
	if len(u.hits) < 2 {
		return 0
	}
	best := map[[2]int32]float64{}
	for j := 1; j < len(u.hits); j++ {
		a, b := u.hits[j-1], u.hits[j]
		if a.term == b.term {
			continue
		}
		d := float64(max(b.pos-a.pos, 1)) // compound parts share a position
		v := min(q.weight[a.term], q.weight[b.term]) / d
		k := [2]int32{min(a.term, b.term), max(a.term, b.term)}
		if v > best[k] {
			best[k] = v
		}
	}
	var sum float64
	for _, v := range best {
		sum += v
	}
	return sum / q.total
}

// phrases is the weight of the question's consecutive term pairs that occur
// as phrases in u (same order, at most one extra word between them),
// normalised by the query's total weight.
func (u *unit) phrases(q *query) float64 {
	if len(q.pairs) == 0 || len(u.hits) < 2 {
		return 0
	}
	var sum float64
	for _, p := range q.pairs {
		for j := 1; j < len(u.hits); j++ {
			a, b := u.hits[j-1], u.hits[j]
			if int(a.term) == p.a && int(b.term) == p.b && int(b.pos-a.pos) <= p.gap+2 {
				sum += q.weight[p.a] + q.weight[p.b]
				break
			}
		}
	}
	return sum / q.total
}

// subject is the idf-weighted share of the query terms that occur among
// the first subjectWords words of u: what a sentence is about comes first
// ("Scott Derrickson (born 1966) is…", "A factor is a vector object…").
func (u *unit) subject(q *query) float64 {
	var sum float64
	seen := make([]bool, len(q.weight))
	for _, h := range u.hits {
		if h.pos >= subjectWords {
			break
		}
		if !seen[h.term] {
			seen[h.term] = true
			sum += q.weight[h.term]
		}
	}
	return sum / q.total
}

const subjectWords = 6

// nameTerms returns the index terms of the capitalised words of text that
// do not open it: the names it mentions.
func nameTerms(text string) []string {
	var out []string
	first := true
	textproc.Words(text, func(s, e int) {
		w := text[s:e]
		if !first && isCapitalised(w) {
			if t := textproc.Term(w); t != "" {
				out = append(out, t)
			}
		}
		first = false
	})
	return out
}

// jaccard is the overlap of two units' term sets.
func jaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	set := make(map[string]bool, len(a))
	for _, t := range a {
		set[t] = true
	}
	inter, seen := 0, map[string]bool{}
	for _, t := range b {
		if set[t] && !seen[t] {
			inter++
		}
		seen[t] = true
	}
	union := len(set) + len(seen) - inter
	return float64(inter) / float64(union)
}
