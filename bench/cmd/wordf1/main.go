// Command wordf1 scores the word-level fidelity of an extracted text
// against a reference (pdftotext's output, say): bag-of-words precision,
// recall and F1 as ingest/doctest.WordF1 computes them. The last line it
// prints is the F1.
//
//	go run ./bench/cmd/wordf1 CANDIDATE.txt REFERENCE.txt
package main

import (
	"fmt"
	"os"

	"github.com/citelens/citelens/ingest/doctest"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: wordf1 CANDIDATE.txt REFERENCE.txt")
		os.Exit(2)
	}
	cand, err := os.ReadFile(os.Args[1])
	if err == nil {
		var ref []byte
		if ref, err = os.ReadFile(os.Args[2]); err == nil {
			p, r, f := doctest.WordF1(string(cand), string(ref))
			fmt.Printf("precision %.4f recall %.4f\n%.4f\n", p, r, f)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "wordf1:", err)
	os.Exit(1)
}
