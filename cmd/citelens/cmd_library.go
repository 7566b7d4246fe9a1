package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

func init() {
	register(&command{name: "ls", args: "[--json [--raw]] [--page N] [--per-page N] [--all] [--all-versions] [--collection NAME]", summary: "list the documents in the library (the latest version of each), a page at a time", run: runLs})
	register(&command{name: "rm", args: "[--this-version | --all-versions] ID...", summary: "remove documents and everything derived from them", run: runRm})
}

// lsPage is how many documents ls shows at a time.
const lsPage = 50

func runLs(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["ls"])
	asJSON := fs.Bool("json", false, "print the documents as JSON (every one, unless --page is given)")
	page := fs.Int("page", 0, "show page `N` (1 is the oldest documents)")
	perPage := fs.Int("per-page", lsPage, "documents a page (`N`)")
	all := fs.Bool("all", false, "show every document (the default when the output is not a terminal)")
	raw := fs.Bool("raw", false, rawJSONUsage)
	var colls stringList
	fs.Var(&colls, "collection", "list only the documents of collection `NAME` (repeatable)")
	allVersions := fs.Bool("all-versions", false, "list older versions of documents too (by default a document's latest version stands for it)")
	if _, err := parseFlags(a, fs, args); err != nil {
		return err
	}
	if *page < 0 || *perPage < 1 {
		fmt.Fprintln(a.stderr, "citelens ls: --page must be 1 or more, and --per-page 1 or more")
		return errUsage
	}
	l, err := a.openLibrary(true)
	if errors.Is(err, errNoLibrary) {
		return a.listNothing(*asJSON, *raw, []docstore.DocInfo{}, emptyLibraryMessage(a))
	}
	if err != nil {
		return err
	}
	defer l.Close()
	// A page reads the compact listing: its cost is the page's, whatever
	// the library holds.
	offset, n := 0, 0 // n 0: every one
	switch {
	case *page > 0:
		offset, n = (*page-1)*(*perPage), *perPage
	case !*all && !*asJSON && isTerminal(a.stdout):
		n = *perPage // a pipe or a file gets every one, as a script expects
	}
	entries, total, err := listing(l, offset, n, colls)
	if err != nil {
		return err
	}
	if *asJSON {
		docs := make([]docstore.DocInfo, 0, len(entries))
		for _, e := range entries {
			info, err := l.Info(e.ID)
			if err != nil {
				return err
			}
			docs = append(docs, info)
		}
		return writeJSON(a.stdout, docs, *raw)
	}
	if total == 0 {
		fmt.Fprintln(a.stdout, emptyLibraryMessage(a))
		return nil
	}
	if len(entries) == 0 {
		fmt.Fprintf(a.stdout, "No documents on page %d: the library holds %s (%s a page).\n", *page, humanize.Plural(total, "document", "documents"), humanize.Count(*perPage))
		return nil
	}
	// tabwriter writes a cell at a time: buffered, a listing of 100,000
	// documents is a few writes, not a million.
	out := bufio.NewWriterSize(a.stdout, 64<<10)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	// One scan of the listing numbers the versions (Versions.Links).
	vers, err := readVersionLinks(l)
	if err != nil {
		return err
	}
	old := docstore.Superseded(vers.infos)
	fmt.Fprintln(tw, "ID\tNAME\tPAGES\tSENTENCES\tADDED\tVERSIONS")
	hidden := 0
	for _, e := range entries {
		if old[e.ID] && !*allVersions {
			hidden++
			continue
		}
		n, of := vers.number(e.ID)
		vcol := ""
		switch {
		case of > 1 && n == of:
			vcol = fmt.Sprintf("%d (latest)", of)
		case of > 1:
			vcol = fmt.Sprintf("%d of %d", n, of)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", e.ID, textproc.OneLine(e.Name), e.Pages, e.Sentences, e.Added.Local().Format("2006-01-02 15:04"), vcol)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if hidden > 0 {
		fmt.Fprintf(out, "%s not shown: 'citelens ls --all-versions' lists them, 'citelens show ID --versions' a document's.\n", humanize.Plural(hidden, "older version", "older versions"))
	}
	if len(entries) < total {
		first := offset + 1
		next := ""
		if offset+len(entries) < total {
			next = fmt.Sprintf("; 'citelens ls --page %d' shows the next, --all every one", offset/(*perPage)+2)
		}
		fmt.Fprintf(out, "Documents %s–%s of %s, oldest first%s.\n", humanize.Count(first), humanize.Count(offset+len(entries)), humanize.Count(total), next)
	}
	return out.Flush()
}

// listing is the page of the library's listing from offset, n entries
// (0: every one), and the total; with collections, of their documents
// only.
func listing(l *docstore.Library, offset, n int, collections []string) ([]docstore.ListEntry, int, error) {
	if len(collections) == 0 {
		return l.Listing(offset, n)
	}
	docs, err := collectionDocs(l, collections)
	if err != nil {
		return nil, 0, err
	}
	all, _, err := l.Listing(0, 0)
	if err != nil {
		return nil, 0, err
	}
	all = slices.DeleteFunc(all, func(e docstore.ListEntry) bool { return !slices.Contains(docs, e.ID) })
	total := len(all)
	all = all[min(offset, total):]
	if n > 0 {
		all = all[:min(n, len(all))]
	}
	return all, total, nil
}

func runRm(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["rm"])
	thisVersion := fs.Bool("this-version", false, "remove only the versions named, keeping the document's others")
	allVersions := fs.Bool("all-versions", false, "remove every version of the documents named")
	refs, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if *thisVersion && *allVersions {
		fmt.Fprintln(a.stderr, "citelens rm: give --this-version or --all-versions, not both")
		return errUsage
	}
	if len(refs) == 0 {
		fmt.Fprintln(a.stderr, "citelens rm: no documents given")
		fs.Usage()
		return errUsage
	}
	l, err := a.openLibrary(false)
	if err != nil {
		return err
	}
	defer l.Close()
	ids, err := resolveDocs(l, refs)
	if err != nil {
		return err
	}
	if ids, err = versionsToRemove(l, ids, *thisVersion, *allVersions); err != nil {
		return err
	}
	if err := l.Remove(ids...); err != nil {
		return err
	}
	for _, id := range ids {
		fmt.Fprintf(a.stdout, "removed %s\n", id)
	}
	return nil
}
