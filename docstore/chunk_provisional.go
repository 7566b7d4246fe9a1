package docstore

import "github.com/citelens/citelens/docstore/textproc"

// chunkSentences groups sentences into chunks of about target tokens.
// PROVISIONAL until segment.Chunks lands.
func chunkSentences(d *Document, target int) []Chunk {
	var out []Chunk
	first, tokens := 0, 0
	for i := range d.Sentences {
		tokens += textproc.EstimateTokens(d.SentenceText(i))
		if tokens >= target || i == len(d.Sentences)-1 {
			out = append(out, Chunk{First: int32(first), Last: int32(i), Tokens: int32(tokens)})
			first, tokens = i+1, 0
		}
	}
	return out
}
