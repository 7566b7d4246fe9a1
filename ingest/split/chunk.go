package split

import "github.com/citelens/citelens/internal/textproc"

// DefaultChunkTokens is the chunk size LongCite uses for chunk-level
// retrieval and citation (128 tokens).
const DefaultChunkTokens = 128

// ChunkOptions configures Chunks.
type ChunkOptions struct {
	// Tokens is the target chunk size in estimated tokens; 0 means
	// DefaultChunkTokens. RAIDD uses 256.
	Tokens int
	// Overlap is how many tokens of the end of one chunk the next chunk
	// repeats at its start, in whole sentences; 0 means none. RAIDD uses
	// 50.
	Overlap int
}

// ChunkSpan is a run of whole sentences, First..Last inclusive (indices
// into the sentence slice given to Chunks), and its estimated size.
type ChunkSpan struct {
	First, Last int
	Tokens      int
}

// Chunks groups sentences into sentence-aligned chunks of about
// opt.Tokens tokens. Tokens are estimated per sentence with
// textproc.EstimateTokens (four bytes of non-CJK text or one CJK character
// per token, no tokenizer), and a chunk's Tokens is the sum over its
// sentences; the whitespace between sentences is not counted.
//
// Like LongCite's chunking, a chunk takes sentences while the sum stays
// within opt.Tokens, so a chunk exceeds the target only when it is a single
// sentence longer than the target. Chunks may cross paragraphs. With
// opt.Overlap > 0, the next chunk starts with the shortest tail of the
// previous chunk whose sentences sum to at least opt.Overlap tokens,
// shortened if need be so that the next chunk still fits its first new
// sentence within the target; every chunk therefore adds at least one
// sentence, and the chunks cover every sentence in order.
//
// Spans outside text are clamped to it (counting as fewer or no tokens)
// rather than rejected; Chunks never panics. The result is deterministic.
func Chunks(text string, sents []Span, opt ChunkOptions) []ChunkSpan {
	if len(sents) == 0 {
		return nil
	}
	target := opt.Tokens
	if target <= 0 {
		target = DefaultChunkTokens
	}
	overlap := max(opt.Overlap, 0)
	toks := make([]int, len(sents))
	for i, s := range sents {
		a, b := max(s.Start, 0), min(s.End, len(text))
		if a < b {
			toks[i] = textproc.EstimateTokens(text[a:b])
		}
	}
	out := make([]ChunkSpan, 0, len(sents)/4+1)
	for first := 0; ; {
		last, sum := first, toks[first]
		for last+1 < len(sents) && sum+toks[last+1] <= target {
			last++
			sum += toks[last]
		}
		out = append(out, ChunkSpan{First: first, Last: last, Tokens: sum})
		if last == len(sents)-1 {
			return out
		}
		next := last + 1
		if overlap > 0 {
			// Grow the tail backwards until it holds overlap tokens,
			// then shrink it until the next sentence fits after it.
			tail := 0
			for next > first+1 && tail < overlap {
				next--
				tail += toks[next]
			}
			for next <= last && tail+toks[last+1] > target {
				tail -= toks[next]
				next++
			}
		}
		first = next
	}
}
