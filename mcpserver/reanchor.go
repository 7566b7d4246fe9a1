package mcpserver

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/citations/reanchor"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/fix"
)

// ReanchorInput is reanchor's input: a citation returned earlier.
type ReanchorInput struct {
	Citation CitationRef `json:"citation" jsonschema:"a citation as search, ask or read returned it (its document and sentences, or its byte range)"`
}

// ReanchorResult says what became of a citation in the latest version of
// its document.
type ReanchorResult struct {
	Class string `json:"class" jsonschema:"latest: the citation's document is its latest version; unchanged: the same text, in order; moved: the same text elsewhere; changed: the same sentence with words changed; gone: no counterpart the alignment is sure of"`
	// From and To are the cited version and the latest.
	From     docstore.DocID `json:"from" jsonschema:"the version cited"`
	To       docstore.DocID `json:"to" jsonschema:"the document's latest version"`
	Version  int            `json:"version" jsonschema:"the cited version's number, from 1"`
	Versions int            `json:"versions" jsonschema:"how many versions the document has"`
	Old      Citation       `json:"old" jsonschema:"the citation in the version cited"`
	New      *Citation      `json:"new,omitempty" jsonschema:"the citation in the latest version (not when gone): cite this"`
	Diff     []reanchor.Op  `json:"diff,omitempty" jsonschema:"for changed: the word difference, runs of kept (=), struck (-) and added (+) words"`
	Nearest  []Citation     `json:"nearest,omitempty" jsonschema:"for gone: the latest version's sentences most like it, best first"`
}

func (s *Server) addReanchor() {
	addTool(s, &mcp.Tool{
		Name:  "reanchor",
		Title: "Carry a citation to a document's latest version",
		Description: "A document may have newer versions (added from the same path, or named as one). Given a citation returned earlier, say what became of it in the latest version: unchanged or moved (with the new citation), changed (the new citation and the word difference) or gone (with the nearest sentences). " +
			"Read and verify work on any version, by its ID or by their version argument (a number from 1); cite the new citation from here.",
		Annotations: readOnly,
	}, func(in *jsonschema.Schema) {
		c := property(in, "citation")
		c.AdditionalProperties = nil
		property(c, "document").MinLength = ptr(1)
		versionSchema(c, "version")
	}, s.reanchor)
}

func (s *Server) reanchor(ctx context.Context, _ *mcp.CallToolRequest, in ReanchorInput) (ReanchorResult, error) {
	var out ReanchorResult
	env, err := s.environment()
	if err != nil {
		return out, err
	}
	l := env.Library
	d, start, end, err := in.Citation.locate(l)
	if err != nil {
		return out, err
	}
	out.Old = readRange(d, start, end).Citation
	out.From = d.ID
	vs, err := l.Versions().Of(d.ID)
	if err != nil {
		return out, err
	}
	out.Versions = len(vs)
	for i, v := range vs {
		if v.ID == d.ID {
			out.Version = i + 1
		}
	}
	latest := vs[len(vs)-1].ID
	out.To = latest
	if latest == d.ID {
		out.Class = "latest"
		return out, nil
	}
	nd, err := l.Document(latest)
	if err != nil {
		return out, fix.With(fmt.Errorf("the latest version %s: %w", latest, err), "Run 'citelens check' on the library.")
	}
	a := reanchor.Align(reanchor.FromDocument(d), reanchor.FromDocument(nd))
	res := a.Citation(out.Old.FirstSentence, out.Old.LastSentence)
	out.Class = string(res.Class)
	if res.First >= 0 {
		c := readRange(nd, res.Start, res.End).Citation
		out.New = &c
		if res.Class == reanchor.Changed {
			out.Diff = reanchor.Diff(out.Old.Text, c.Text)
		}
	}
	for _, cand := range res.Candidates {
		out.Nearest = append(out.Nearest, readRange(nd, cand.Start, cand.End).Citation)
	}
	return out, ctx.Err()
}
