package citations

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/citelens/citelens/internal/textproc"
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
// The strings of the JSON formats are made Printable, as every output of
// citelens is (textproc.WriteSafeJSON): a consumer that decodes them gets
// no escape sequence from a document or a model. ExportExact writes them
// as stored.
func Export(w io.Writer, format string, a *Answer, docs DocLookup) error {
	return export(w, format, a, docs, false)
}

// ExportExact is Export with the strings of the JSON formats exactly as
// stored (lossless: ReadJSON reads the json format back), control
// characters written as \u escapes.
func ExportExact(w io.Writer, format string, a *Answer, docs DocLookup) error {
	return export(w, format, a, docs, true)
}

func export(w io.Writer, format string, a *Answer, docs DocLookup, exact bool) error {
	f, err := LookupFormat(format)
	if err != nil {
		return err
	}
	switch f.Name {
	case "json", "longbench":
		write := func(w io.Writer) error {
			if f.Name == "json" {
				return WriteJSON(w, a)
			}
			return WriteLongBenchCite(w, docs, a)
		}
		if exact {
			return write(w)
		}
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			return err
		}
		_, err := w.Write(textproc.SafeJSON(buf.Bytes()))
		return err
	case "html":
		return WriteHTML(w, a)
	default:
		return WriteMarkdown(w, a)
	}
}
