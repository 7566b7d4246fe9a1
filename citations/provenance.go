package citations

import (
	"bytes"
	"html"
	"io"
	"strings"
)

// AddProvenance adds to doc, an export in format, the versions the answer
// cites and, when a newer version changed its evidence, the changes: in
// Markdown and HTML a notice at the top listing them and the versions at
// the end; in the json format the same as fields of their own after the
// answer's (WithProvenance). Other formats (longbench, whose scorer
// expects its shape) and a nil p leave doc as it is.
func AddProvenance(format string, doc []byte, p *Provenance) ([]byte, error) {
	if p == nil {
		return doc, nil
	}
	var lines, changes []string // plain text
	for _, c := range p.Versions {
		lines = append(lines, c.Line)
	}
	if p.Changed != nil {
		for _, c := range p.Changed.Changes {
			changes = append(changes, c.Line)
		}
	}
	switch format {
	case "json":
		return WithProvenance(doc, *p)
	case "md":
		var top, end strings.Builder
		if len(changes) > 0 {
			top.WriteString("> **The evidence of this answer changed in a newer version of a document it cites** ('" + escapeMD(p.Changed.Recheck) + "'):\n")
			for _, c := range changes {
				top.WriteString(">\n> - " + escapeMD(c) + "\n")
			}
			top.WriteString("\n")
		}
		end.WriteString("\n## Versions cited\n\n")
		for _, l := range lines {
			end.WriteString("- " + escapeMD(l) + "\n")
		}
		return append(append([]byte(top.String()), doc...), end.String()...), nil
	case "html":
		// The notice opens the main part, the versions close it.
		var top, end strings.Builder
		if len(changes) > 0 {
			top.WriteString(`<aside class="stale"><p><strong>The evidence of this answer changed in a newer version of a document it cites.</strong></p><ul>`)
			for _, c := range changes {
				top.WriteString("<li>" + html.EscapeString(c) + "</li>")
			}
			top.WriteString("</ul></aside>\n")
		}
		end.WriteString(`<section class="versions"><h2>Versions cited</h2><ul>`)
		for _, l := range lines {
			end.WriteString("<li>" + html.EscapeString(l) + "</li>")
		}
		end.WriteString("</ul></section>\n")
		out := string(doc)
		if i := strings.Index(out, "<main>\n"); i >= 0 && top.Len() > 0 {
			out = out[:i+len("<main>\n")] + top.String() + out[i+len("<main>\n"):]
		}
		if i := strings.LastIndex(out, "</main>"); i >= 0 {
			out = out[:i] + end.String() + out[i:]
		}
		return []byte(out), nil
	}
	return doc, nil
}

// writeWithProvenance writes to w what write writes, with p added to it
// in format (AddProvenance); with no p, straight through.
func writeWithProvenance(w io.Writer, format string, p *Provenance, write func(io.Writer) error) error {
	if p == nil {
		return write(w)
	}
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	out, err := AddProvenance(format, buf.Bytes(), p)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}
