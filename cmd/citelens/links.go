package main

import (
	"io"
	"os"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/viewer"
)

// hyperlinks reports whether w is a terminal to write OSC 8 links to:
// terminals that do not know them show the text alone, but the Linux
// console and dumb terminals are left plain, and CITELENS_NO_LINKS (any
// value) turns them off.
func hyperlinks(w io.Writer) bool {
	if !isTerminal(w) || os.Getenv("CITELENS_NO_LINKS") != "" {
		return false
	}
	switch os.Getenv("TERM") {
	case "", "dumb", "linux":
		return false
	}
	return true
}

// sourceLink is the link of a citation's source: the document's file as
// the library recorded it when it was added (never text of the answer),
// at the cited page for a PDF; "" when the library does not know it.
func sourceLink(l *docstore.Library, c citations.Span) string {
	info, err := l.Info(c.Doc)
	if err != nil || info.Path == "" {
		return ""
	}
	page := 0
	if info.Kind == "pdf" {
		page = c.Page
	}
	return viewer.PageURL(info.Path, page)
}
