package main

import (
	"fmt"
	"io"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// contextUsage is the help of ask's and search's --context.
const contextUsage = "print `N` sentences before and after each cited one, as grep -C does (cited lines marked s12:, context s11-)"

// writeContext prints sentences first-n to last+n of v, one a line under
// indent, as grep -n -C does: "s12: text" for the sentences cited and
// "s11- text" for those around them, so the reader sees a quote in its
// place without opening the document.
func writeContext(w io.Writer, indent string, v *docstore.View, first, last, n int) error {
	from, to := max(first-n, 0), min(last+n, v.NumSentences()-1)
	for i := from; i <= to; i++ {
		sep := "-"
		if i >= first && i <= last {
			sep = ":"
		}
		if _, err := fmt.Fprintf(w, "%ss%d%s %s\n", indent, i, sep, textproc.OneLine(v.SentenceText(i))); err != nil {
			return err
		}
	}
	return v.Err()
}
