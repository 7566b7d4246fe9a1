package citations

import (
	"fmt"
	"io"
	"strings"
)

// Format is one of the export formats.
type Format struct {
	Name        string // what --format and the TUI's picker take: "md", "json"…
	Ext         string // file name extension, without the dot
	Description string // one line for a picker or usage text
}

// Formats lists the export formats, Markdown (the default) first.
var Formats = []Format{
	{Name: "md", Ext: "md", Description: "Markdown: the answer with footnotes quoting every cited span"},
	{Name: "json", Ext: "json", Description: "JSON: the complete answer record, lossless"},
	{Name: "longbench", Ext: "json", Description: "LongBench-Cite: the record eval_cite.py scores"},
	{Name: "html", Ext: "html", Description: "HTML: one self-contained page with the evidence"},
}

// LookupFormat returns the format with that name ("markdown" is accepted
// for "md"), case-insensitively.
func LookupFormat(name string) (Format, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "markdown" {
		n = "md"
	}
	for _, f := range Formats {
		if f.Name == n {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = f.Name
	}
	return Format{}, fmt.Errorf("%w %q: use one of %s", ErrUnknownFormat, name, strings.Join(names, ", "))
}

// Export writes a in the named format (see Formats). docs is needed by the
// LongBench-Cite format only, which measures offsets in the whole document.
func Export(w io.Writer, format string, a *Answer, docs DocLookup) error {
	f, err := LookupFormat(format)
	if err != nil {
		return err
	}
	switch f.Name {
	case "json":
		return WriteJSON(w, a)
	case "longbench":
		return WriteLongBenchCite(w, docs, a)
	case "html":
		return WriteHTML(w, a)
	default:
		return WriteMarkdown(w, a)
	}
}
