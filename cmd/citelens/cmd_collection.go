package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/storage"
)

// Collections: named subsets of the library's documents (docstore's
// Collections), shared or private to their author; ask, search and ls
// take --collection to work on one as on the same documents given with
// --doc.

func init() {
	register(&command{
		name:    "collection",
		args:    "create NAME [--private] DOC... | add NAME DOC... | remove NAME DOC... | ls [--json [--raw]] | rm NAME",
		summary: "named subsets of the documents, shared or private (ask, search, ls --collection)",
		run:     runCollection,
	})
}

func runCollection(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["collection"])
	private := fs.Bool("private", false, "create: only its owner sees it (on PostgreSQL, enforced by the server for other roles)")
	asJSON := fs.Bool("json", false, "ls: print the collections as JSON")
	raw := fs.Bool("raw", false, rawJSONUsage)
	words, err := parseFlags(a, fs, args)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		fmt.Fprintln(a.stderr, "citelens collection: say what to do: create, add, remove, ls or rm")
		fs.Usage()
		return errUsage
	}
	verb, rest := words[0], words[1:]
	need := map[string]int{"create": 1, "add": 2, "remove": 2, "ls": 0, "rm": 1}
	n, ok := need[verb]
	if !ok {
		return usageError(a, fs, fmt.Sprintf("no collection command %q: create, add, remove, ls or rm", textproc.OneLine(verb)))
	}
	if len(rest) < n || (verb == "rm" && len(rest) != 1) || (verb == "ls" && len(rest) != 0) {
		return usageError(a, fs, fmt.Sprintf("collection %s takes %s", verb, map[string]string{
			"create": "a NAME and the documents to put in it", "add": "a NAME and the documents to add",
			"remove": "a NAME and the documents to take out", "ls": "no arguments", "rm": "one NAME",
		}[verb]))
	}
	l, err := a.openLibrary(verb == "ls")
	if errors.Is(err, errNoLibrary) && verb == "ls" {
		return a.listNothing(*asJSON, *raw, []storage.Collection{}, "No collections.")
	}
	if err != nil {
		return err
	}
	defer l.Close()
	cs := l.Collections()
	switch verb {
	case "ls":
		return listCollections(a, l, cs, *asJSON, *raw)
	case "rm":
		if err := cs.Delete(rest[0]); err != nil {
			return collectionError(err)
		}
		fmt.Fprintf(a.stdout, "deleted collection %s (its documents stay in the library)\n", textproc.OneLine(rest[0]))
		return nil
	}
	name, refs := rest[0], rest[1:]
	var ids []string
	if verb == "remove" {
		ids, err = collectionMembers(l, cs, name, refs)
	} else {
		ids, err = docIDs(l, refs)
	}
	if err != nil {
		return err
	}
	switch verb {
	case "create":
		err = cs.Create(name, *private, ids)
	case "add":
		err = cs.Add(name, ids)
	case "remove":
		err = cs.Remove(name, ids)
	}
	if err != nil {
		return collectionError(err)
	}
	c, err := cs.Get(name)
	if err != nil {
		return collectionError(err)
	}
	fmt.Fprintf(a.stdout, "collection %s: %s%s\n", textproc.OneLine(c.Name), plural(len(c.Docs), "document"), map[bool]string{true: ", private", false: ""}[c.Private])
	return nil
}

// usageError prints why and the usage, and is errUsage.
func usageError(a *app, fs *flag.FlagSet, why string) error {
	fmt.Fprintln(a.stderr, "citelens collection: "+why)
	fs.Usage()
	return errUsage
}

// plural is "1 document", "3 documents".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// docIDs resolves document references as --doc does.
func docIDs(l *docstore.Library, refs []string) ([]string, error) {
	ids, err := resolveDocs(l, refs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out, nil
}

// collectionMembers resolves references to documents of the collection
// name: as --doc does, or, for one removed from the library since, as a
// prefix of an ID the collection holds.
func collectionMembers(l *docstore.Library, cs storage.Collections, name string, refs []string) ([]string, error) {
	c, err := cs.Get(name)
	if err != nil {
		return nil, collectionError(err)
	}
	var out []string
	for _, ref := range refs {
		ids, err := docIDs(l, []string{ref})
		if errors.Is(err, docstore.ErrNotFound) {
			i := slices.IndexFunc(c.Docs, func(id string) bool { return strings.HasPrefix(id, ref) })
			if i < 0 || ref == "" {
				return nil, err
			}
			ids = []string{c.Docs[i]}
		} else if err != nil {
			return nil, err
		}
		out = append(out, ids...)
	}
	return out, nil
}

// collectionError adds the fix to a collection's error.
func collectionError(err error) error {
	switch {
	case errors.Is(err, storage.ErrCollectionNotFound):
		return fix.With(err, "List the collections you can see with 'citelens collection ls'.")
	case errors.Is(err, storage.ErrCollectionExists):
		return fix.With(err, "Choose another name, or add to it with 'citelens collection add NAME DOC...'.")
	case errors.Is(err, storage.ErrNotOwner):
		return fix.With(err, "Ask its owner to delete it.")
	}
	return err
}

func listCollections(a *app, l *docstore.Library, cs storage.Collections, asJSON, raw bool) error {
	list, err := cs.List()
	if err != nil {
		return err
	}
	if asJSON {
		if list == nil {
			list = []storage.Collection{}
		}
		return writeJSON(a.stdout, list, raw)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "No collections. Make one with 'citelens collection create NAME DOC...'.")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDOCUMENTS\tOWNER\tSHARING\tCREATED")
	for _, c := range list {
		sharing := "shared"
		if c.Private {
			sharing = "private"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", textproc.OneLine(c.Name), len(c.Docs), textproc.OneLine(c.Owner), sharing, c.Created.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// collectionDocs is the documents of the collections names, as --doc
// would give them: every one of theirs still in the library, once each,
// in the order named. A collection with none of its documents left is an
// error, never "every document".
func collectionDocs(l *docstore.Library, names []string) ([]docstore.DocID, error) {
	var out []docstore.DocID
	for _, name := range names {
		docs, gone, err := l.Collections().InLibrary(name)
		if err != nil {
			return nil, collectionError(err)
		}
		if len(docs) == 0 {
			why := "holds no documents"
			if gone > 0 {
				why = "holds only documents removed from the library since"
			}
			return nil, fix.With(fmt.Errorf("collection %s %s", textproc.OneLine(name), why),
				"Add documents with 'citelens collection add NAME DOC...'.")
		}
		for _, d := range docs {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// withCollections adds the documents of the collections names to docs,
// the documents given with --doc (once each).
func withCollections(l *docstore.Library, docs []docstore.DocID, names []string) ([]docstore.DocID, error) {
	if len(names) == 0 {
		return docs, nil
	}
	more, err := collectionDocs(l, names)
	if err != nil {
		return nil, err
	}
	for _, d := range more {
		if !slices.Contains(docs, d) {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// collectionUsage is the --collection flag's help.
const collectionUsage = "only the documents of collection `NAME` (repeatable; as --doc with its documents)"
