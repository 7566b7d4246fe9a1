package llm

import (
	"math"
	"testing"
)

// FuzzParseRerank feeds arbitrary bytes to the rerank answer parser: it
// must refuse them or return exactly the results asked for, each document
// once, best first, every score finite.
func FuzzParseRerank(f *testing.F) {
	f.Add([]byte(`{"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.1}],"usage":{"total_tokens":9}}`), uint8(2), uint8(0))
	f.Add([]byte(`[{"index":0,"score":0.5},{"index":1,"score":0.7}]`), uint8(2), uint8(1))
	f.Add([]byte(`{"results":[{"index":0,"relevance_score":null}]}`), uint8(1), uint8(0))
	f.Add([]byte(`{"results":[{"index":3,"relevance_score":1}]}`), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, docs, top uint8) {
		n := int(docs%8) + 1
		topN := int(top) % (n + 1)
		if topN == 0 {
			topN = n
		}
		res, _, err := parseRerank(data, n, topN)
		if err != nil {
			return
		}
		if len(res) != topN {
			t.Fatalf("%d results for top %d", len(res), topN)
		}
		seen := map[int]bool{}
		for i, r := range res {
			if r.Index < 0 || r.Index >= n || seen[r.Index] || math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
				t.Fatalf("bad result %+v", r)
			}
			if i > 0 && r.Score > res[i-1].Score {
				t.Fatal("not best first")
			}
			seen[r.Index] = true
		}
	})
}
