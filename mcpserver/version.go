package mcpserver

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

// versionDoc is the help of read's and verify's version: which of a
// document's versions to read. Without it the document named is read as
// named — a file name means its latest version, an ID that version.
const versionDoc = "which version of the document to read: its number (1 is the first added; reanchor says how many there are), or the ID of one of its versions; default: the version the document names — its latest for a file name"

// versionSchema makes property name of in take an integer from 1 or a
// string (a version's ID, or its number written as a string).
func versionSchema(in *jsonschema.Schema, name string) {
	p := property(in, name)
	p.Type, p.Types = "", []string{"integer", "string"}
	p.Description = versionDoc
}

// atVersion returns the version v of d's document: d itself when v is
// absent (nil or ""), else the v-th version (a number, or a numeric
// string) or the version whose ID (or ID prefix) v is, which must be one
// of d's versions.
func atVersion(l *docstore.Library, d *docstore.Document, v any) (*docstore.Document, error) {
	var n int
	var ref string
	switch v := v.(type) {
	case nil:
		return d, nil
	case float64:
		if v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
			return nil, fix.With(fmt.Errorf("version %v is not a version number", v), "Give a whole number from 1, or a version's document ID.")
		}
		n = int(v)
	case string:
		ref = strings.TrimSpace(v)
		if ref == "" {
			return d, nil
		}
		if i, err := strconv.Atoi(ref); err == nil {
			if i < 1 {
				return nil, fix.With(fmt.Errorf("version %d: versions are numbered from 1", i), "Give a whole number from 1, or a version's document ID.")
			}
			n, ref = i, ""
		}
	default:
		return nil, fix.With(errors.New("version is neither a number nor a document ID"), "Give a whole number from 1, or a version's document ID.")
	}
	vs, err := l.Versions().Of(d.ID)
	if err != nil {
		return nil, err
	}
	name := textproc.OneLine(vs[len(vs)-1].DisplayName())
	var id docstore.DocID
	if n > 0 {
		if n > len(vs) {
			return nil, fix.With(fmt.Errorf("%s has %d version(s), not a version %d", name, len(vs), n), "Give a version from 1 to %d.", len(vs))
		}
		id = vs[n-1].ID
	} else {
		var found []docstore.DocID
		for _, in := range vs {
			if strings.HasPrefix(string(in.ID), strings.ToLower(ref)) {
				found = append(found, in.ID)
			}
		}
		switch len(found) {
		case 0:
			return nil, fix.With(fmt.Errorf("%q is not a version of %s", textproc.OneLine(ref), name), "Give a version number from 1 to %d, or the ID of one of its versions (reanchor lists them).", len(vs))
		case 1:
			id = found[0]
		default:
			return nil, fix.With(fmt.Errorf("%q is the start of %d versions' IDs of %s", textproc.OneLine(ref), len(found), name), "Give more of the ID, or the version's number.")
		}
	}
	if id == d.ID {
		return d, nil
	}
	return l.Document(id)
}
