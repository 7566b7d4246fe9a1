package pdftext

import (
	"bytes"
	"math/rand/v2"
)

// mutatedPDFs returns n damaged variants of the PDFs in seeds, made
// deterministically (flipped bytes, PDF delimiters dropped in, runs cut
// out or repeated, the file cut short): the kind of files a red-team pass
// feeds a reader.
func mutatedPDFs(seeds [][]byte, n int) [][]byte {
	rng := rand.New(rand.NewPCG(15, 375))
	tokens := [][]byte{[]byte("<"), []byte(">"), []byte("("), []byte(")"), []byte("<<"), []byte(">>"), []byte("["), []byte("]"),
		[]byte("/"), []byte("\\"), []byte("q"), []byte(" 0 R"), []byte("endobj"), []byte("stream\n"), []byte("<4g"), []byte("%%EOF")}
	out := make([][]byte, 0, n)
	for i := range n {
		b := bytes.Clone(seeds[i%len(seeds)])
		for range 1 + rng.IntN(4) {
			p := rng.IntN(len(b))
			switch rng.IntN(5) {
			case 0: // flip bytes
				for k := range 1 + rng.IntN(8) {
					if p+k < len(b) {
						b[p+k] ^= byte(1 + rng.IntN(255))
					}
				}
			case 1: // drop in a delimiter
				tok := tokens[rng.IntN(len(tokens))]
				b = append(b[:p:p], append(tok, b[p:]...)...)
			case 2: // cut a run out
				e := min(len(b), p+1+rng.IntN(200))
				b = append(b[:p:p], b[e:]...)
			case 3: // repeat a run
				e := min(len(b), p+1+rng.IntN(200))
				b = append(b[:e:e], append(bytes.Clone(b[p:e]), b[e:]...)...)
			default: // cut the file short
				b = b[:max(p, len(b)/3)]
			}
		}
		out = append(out, b)
	}
	return out
}
