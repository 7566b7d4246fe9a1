// Command pdfextract prints the text pdftext extracts from a PDF; it exists
// to benchmark and inspect the extractor.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/citelens/citelens/ingest/pdftext"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: pdfextract FILE.pdf [OUT.txt]")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	res, err := pdftext.Extract(context.Background(), f, st.Size(), nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	out := os.Stdout
	if len(os.Args) == 3 {
		if out, err = os.Create(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if _, err := out.WriteString(res.Text + "\n"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := out.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
