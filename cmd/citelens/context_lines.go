package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/textproc"
)

// contextUsage is the help of ask's and search's --context.
const contextUsage = "print `N` sentences before and after each cited one, as grep -C does (cited lines marked s12:, context s11-)"

// writeContext prints sentences first-n to last+n of v, one a line under
// indent, as grep -n -C does: "s12: text" for the sentences cited and
// "s11- text" for those around them, so the reader sees a quote in its
// place without opening the document. width, when not 0, is the
// terminal's, which the lines are wrapped to.
func writeContext(w io.Writer, indent string, v *docstore.View, first, last, n, width int) error {
	from, to := max(first-n, 0), min(last+n, v.NumSentences()-1)
	for i := from; i <= to; i++ {
		sep := "-"
		if i >= first && i <= last {
			sep = ":"
		}
		line := fmt.Sprintf("%ss%d%s %s", indent, i, sep, textproc.OneLine(v.SentenceText(i)))
		if width > len(indent)+20 {
			line = strings.ReplaceAll(ansi.Wrap(line, width-len(indent)-4, ""), "\n", "\n"+indent+"    ")
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return v.Err()
}

// terminalWidth is the width in columns of the terminal w writes to, or
// 0 when w is no terminal (a pipe or file gets lines unwrapped, for
// programs to read).
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return 0
	}
	cols, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return cols
}
