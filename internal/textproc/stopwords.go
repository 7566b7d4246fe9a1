package textproc

// stopWords is a small English stop list: function words that carry no topic.
// It is deliberately short (no "new", "first", "american"…): BM25's idf
// already discounts common words, and a long list hurts questions such as
// "Who was the first …". Question words are stop words here because they
// appear in questions, not in the sentences that answer them.
var stopWords = map[string]bool{}

func init() {
	for _, w := range []string{
		"a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "been", "being", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "done",
		"each", "either", "else", "etc",
		"for", "from", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "itself",
		"just", "may", "me", "might", "more", "most", "must", "my",
		"no", "nor", "not", "of", "on", "or", "other", "our", "ours", "own",
		"s", "same", "shall", "she", "should", "so", "some", "such",
		"t", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "to", "too",
		"us", "very", "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "would",
		"you", "your", "yours",
	} {
		stopWords[w] = true
	}
}

// IsStopWord reports whether a case-folded word is on the stop list.
func IsStopWord(w string) bool { return stopWords[w] }
