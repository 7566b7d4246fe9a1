package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/docstore"
)

// The resources: each document's stored text, whole and by page. Their
// text is exactly the bytes every citation's offsets point into.
const (
	docPrefix    = "citelens://doc/"
	docTemplate  = docPrefix + "{id}"
	pageTemplate = docPrefix + "{id}/page/{page}"
)

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: docTemplate, Name: "document", Title: "A document's text", MIMEType: "text/plain",
		Description: "The whole stored text of a document of the library; a citation's start and end are byte offsets into it.",
	}, s.readResource)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: pageTemplate, Name: "page", Title: "A page of a document", MIMEType: "text/plain",
		Description: "The stored text of one page of a document, numbered from 1 as the file counts its pages.",
	}, s.readResource)
	// The documents are listed as they are in the library at each listing:
	// other processes add and remove them while the server runs.
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/list" {
				if err := s.syncResources(); err != nil {
					return nil, toolError(err)
				}
			}
			return next(ctx, method, req)
		}
	})
}

// syncResources registers each document of the library as a resource,
// and unregisters those no longer in it.
func (s *Server) syncResources() error {
	l, err := s.library()
	if errors.Is(err, ErrNoLibrary) {
		return nil // no library yet: no documents
	}
	if err != nil {
		return err
	}
	return s.syncResourcesOf(l)
}

// syncResourcesOf is syncResources of the library l. A change of the
// resources goes to the clients as notifications/resources/list_changed
// (the SDK sends it, one for changes close together). Syncs run one at a
// time, so an older list never replaces a newer one.
func (s *Server) syncResourcesOf(l *docstore.Library) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	infos, err := l.List()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := map[docstore.DocID]bool{}
	for _, in := range infos {
		now[in.ID] = true
		if s.listed[in.ID] {
			continue
		}
		desc := fmt.Sprintf("%s, %d pages, %d sentences", in.Kind, in.Pages, in.NumSents)
		if in.Title != "" {
			desc = in.Title + " — " + desc
		}
		s.mcp.AddResource(&mcp.Resource{URI: docURI(in.ID), Name: in.Name, Title: in.Name, MIMEType: "text/plain",
			Description: desc, Size: int64(in.Bytes)}, s.readResource)
	}
	var gone []string
	for id := range s.listed {
		if !now[id] {
			gone = append(gone, docURI(id))
		}
	}
	s.mcp.RemoveResources(gone...)
	s.listed = now
	return nil
}

// readResource reads citelens://doc/{id} or citelens://doc/{id}/page/{n}.
func (s *Server) readResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	ref, page, hasPage := strings.Cut(strings.TrimPrefix(uri, docPrefix), "/page/")
	l, err := s.library()
	if errors.Is(err, ErrNoLibrary) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, toolError(err)
	}
	d, err := l.Document(docstore.DocID(ref))
	if errors.Is(err, docstore.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, toolError(err)
	}
	text := d.Text
	if hasPage {
		n, err := strconv.Atoi(page)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		start, end, err := d.PageSpan(n)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		text = d.Text[start:end]
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
}
