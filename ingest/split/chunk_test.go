package split

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/textproc"
)

// sized builds a text of ASCII sentences whose estimated token counts are
// exactly toks (4 bytes per token), separated by single spaces.
func sized(toks []int) (string, []Span) {
	var b strings.Builder
	var sents []Span
	for i, n := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		start := b.Len()
		b.WriteString(strings.Repeat("w", 4*n-1) + ".")
		sents = append(sents, Span{start, b.Len()})
	}
	return b.String(), sents
}

func TestChunks(t *testing.T) {
	t.Parallel()
	toks := []int{40, 40, 40, 40, 200, 10, 10}
	text, sents := sized(toks)
	for _, tt := range []struct {
		name string
		opt  ChunkOptions
		want []ChunkSpan
	}{
		{"default 128, no overlap", ChunkOptions{},
			[]ChunkSpan{{0, 2, 120}, {3, 3, 40}, {4, 4, 200}, {5, 6, 20}}},
		{"overlap 50", ChunkOptions{Tokens: 128, Overlap: 50},
			// The tail 1..2 (80 tokens) is the shortest holding 50; before
			// the 200-token sentence no tail fits, so none is kept.
			[]ChunkSpan{{0, 2, 120}, {1, 3, 120}, {4, 4, 200}, {5, 6, 20}}},
		{"overlap larger than the target", ChunkOptions{Tokens: 100, Overlap: 500},
			[]ChunkSpan{{0, 1, 80}, {1, 2, 80}, {2, 3, 80}, {4, 4, 200}, {5, 6, 20}}},
		{"target 256", ChunkOptions{Tokens: 256},
			[]ChunkSpan{{0, 3, 160}, {4, 6, 220}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Chunks(text, sents, tt.opt)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			checkChunks(t, text, sents, tt.opt, got)
		})
	}
}

func TestChunksEdgeCases(t *testing.T) {
	t.Parallel()
	if got := Chunks("text", nil, ChunkOptions{}); got != nil {
		t.Errorf("no sentences: got %v", got)
	}
	// Spans outside the text are clamped, not a panic.
	got := Chunks("short", []Span{{0, 5}, {3, 900}, {-4, 2}, {7, 3}}, ChunkOptions{Tokens: 1})
	if len(got) == 0 || got[0].First != 0 || got[len(got)-1].Last != 3 {
		t.Errorf("clamped spans: got %v", got)
	}
}

// TestChunksHotpotQA chunks a real document with LongCite's and RAIDD's
// settings and checks the invariants and that chunks are near the target.
func TestChunksHotpotQA(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(hotpotDir(t), "docs", "hotpotqa53.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	sents := Sentences(text)
	for _, opt := range []ChunkOptions{{}, {Tokens: 256, Overlap: 50}} {
		chunks := Chunks(text, sents, opt)
		checkChunks(t, text, sents, opt, chunks)
		if again := Chunks(text, sents, opt); !slices.Equal(chunks, again) {
			t.Fatal("Chunks is not deterministic")
		}
		total := 0
		for _, c := range chunks {
			total += c.Tokens
		}
		mean := float64(total) / float64(len(chunks))
		target := cmp(opt.Tokens, DefaultChunkTokens)
		t.Logf("%+v: %d sentences, %d chunks, mean %.1f tokens", opt, len(sents), len(chunks), mean)
		if mean < 0.6*float64(target) || mean > float64(target) {
			t.Errorf("mean chunk %.1f tokens for a target of %d", mean, target)
		}
	}
}

func cmp(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// checkChunks verifies what Chunks promises, from the outside.
func checkChunks(t testing.TB, text string, sents []Span, opt ChunkOptions, chunks []ChunkSpan) {
	t.Helper()
	if len(sents) == 0 {
		if len(chunks) != 0 {
			t.Fatalf("chunks %v for no sentences", chunks)
		}
		return
	}
	target := cmp(opt.Tokens, DefaultChunkTokens)
	toks := make([]int, len(sents))
	for i, s := range sents {
		a, b := max(s.Start, 0), min(s.End, len(text))
		if a < b {
			toks[i] = textproc.EstimateTokens(text[a:b])
		}
	}
	if len(chunks) == 0 || chunks[0].First != 0 || chunks[len(chunks)-1].Last != len(sents)-1 {
		t.Fatalf("chunks %v do not span sentences 0..%d", chunks, len(sents)-1)
	}
	for i, c := range chunks {
		if c.First > c.Last {
			t.Fatalf("chunk %d %v is empty", i, c)
		}
		sum := 0
		for k := c.First; k <= c.Last; k++ {
			sum += toks[k]
		}
		if sum != c.Tokens {
			t.Fatalf("chunk %d %v: Tokens %d, sentences sum to %d", i, c, c.Tokens, sum)
		}
		if c.Tokens > target && c.First != c.Last {
			t.Fatalf("chunk %d %v exceeds the target %d with several sentences", i, c, target)
		}
		if c.Last+1 < len(sents) && c.Tokens+toks[c.Last+1] <= target {
			t.Fatalf("chunk %d %v stops short: the next sentence (%d tokens) fits", i, c, toks[c.Last+1])
		}
		if i == 0 {
			continue
		}
		p := chunks[i-1]
		if c.First <= p.First || c.First > p.Last+1 || c.Last <= p.Last {
			t.Fatalf("chunk %d %v does not follow chunk %v", i, c, p)
		}
		if opt.Overlap <= 0 {
			if c.First != p.Last+1 {
				t.Fatalf("chunk %d %v overlaps %v without Overlap", i, c, p)
			}
			continue
		}
		// The repeated tail c.First..p.Last is the shortest holding
		// Overlap tokens, unless that would not leave room for the next
		// sentence or would repeat the whole previous chunk.
		tail := 0
		for k := c.First; k <= p.Last; k++ {
			tail += toks[k]
		}
		next := toks[p.Last+1]
		if c.First <= p.Last && tail+next > target {
			t.Fatalf("chunk %d %v: tail of %d tokens leaves no room for the next sentence", i, c, tail)
		}
		if c.First <= p.Last && tail-toks[c.First] >= opt.Overlap {
			t.Fatalf("chunk %d %v: tail of %d tokens is longer than Overlap %d needs", i, c, tail, opt.Overlap)
		}
		if tail < opt.Overlap && c.First-1 > p.First && tail+toks[c.First-1]+next <= target {
			t.Fatalf("chunk %d %v: tail of %d tokens is short of Overlap %d though another sentence fits", i, c, tail, opt.Overlap)
		}
	}
}

func FuzzChunks(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, 128, 0)
		f.Add(s, 16, 5)
	}
	f.Add(strings.Repeat("Short one. A much longer sentence follows here, with more words in it. ", 20), 30, 12)
	f.Add(strings.Repeat("汉字。", 50), 3, 2)
	f.Fuzz(func(t *testing.T, text string, tokens, overlap int) {
		opt := ChunkOptions{Tokens: tokens % 2048, Overlap: overlap % 2048}
		sents := Sentences(text)
		checkChunks(t, text, sents, opt, Chunks(text, sents, opt))
	})
}
