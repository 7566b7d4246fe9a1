package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/judge"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
)

// Options configure a Server.
type Options struct {
	// Open opens the library and the environment answers are written in
	// (the model configuration). It is called on first use, and again on
	// each use after it failed: a library that did not exist when the
	// server started is found once `citelens add` has made it. An error
	// wrapping ErrNoLibrary means there is no library yet, which
	// list_documents reports as an empty library.
	Open func() (*engine.Env, error)
	// AllowWrites offers add_document and saves answers in the library;
	// Open must then open it for writing. Without it the server only
	// reads.
	AllowWrites bool
	// Strategy is the strategy ask uses when the call names none (""
	// means engine.DefaultStrategy).
	Strategy string
	// Version is citelens's version, told to clients.
	Version string
}

// ErrNoLibrary means the library file does not exist yet (Options.Open).
var ErrNoLibrary = errors.New("the library does not exist yet")

// Server is citelens's MCP server: the tools and resources over one
// library. Serve it with ServeStdio or Handler.
type Server struct {
	opts Options
	mcp  *mcp.Server

	mu  sync.Mutex
	env *engine.Env
	// listed are the documents registered as resources, as of the last
	// resources/list or change of the library (watch.go); syncMu makes
	// the syncs that change it one at a time.
	listed map[docstore.DocID]bool
	syncMu sync.Mutex
	// unwatch stops watching the library (watch.go).
	unwatch context.CancelFunc
	// judged is verify's model judge, made on first use; noJudge says
	// why there is none.
	judged  *judge.Judge
	noJudge string

	// inputs are the tools' input schemas by name, for numericStrings.
	inputs map[string]*jsonschema.Schema

	// answered, when set (by tests), is told of each answer ask's run
	// returns, as it returns.
	answered func(*engine.Answer, error)
}

// New makes a server with the tools and resources of the package doc.
func New(opts Options) *Server {
	if opts.Strategy == "" {
		opts.Strategy = engine.DefaultStrategy
	}
	s := &Server{opts: opts, listed: map[docstore.DocID]bool{}, inputs: map[string]*jsonschema.Schema{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "citelens", Title: "citelens", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// Tools are fixed; the resources are the library's documents,
		// which other processes add and remove: the server watches the
		// library and tells clients when the list changes (watch.go).
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
		},
	})
	s.addTools()
	s.addResources()
	s.mcp.AddReceivingMiddleware(s.numericStrings)
	return s
}

// instructions tell an agent how the tools fit together.
const instructions = `citelens holds the user's library of long documents (PDFs, manuals, papers). Every citation it returns names a document, a sentence range, a byte range and a page, and its text is exactly the document's bytes at that range: check one with read, or with verify against a claim.
Start with list_documents to see what is there; search finds the sentences that match words, ask answers a question with cited statements, read returns the exact text of sentences, a page or a byte range.`

// MCP returns the SDK server, for a transport of the caller's own (tests
// connect one end of an in-memory transport to it).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Close closes the library, once the transports have stopped.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unwatch != nil {
		s.unwatch()
		s.unwatch = nil
	}
	if s.env == nil {
		return nil
	}
	err := s.env.Library.Close()
	s.env = nil
	return err
}

// environment returns the environment, opening it on first use.
func (s *Server) environment() (*engine.Env, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.env != nil {
		return s.env, nil
	}
	env, err := s.opts.Open()
	if err != nil {
		return nil, err
	}
	s.env = env
	s.watch(env.Library)
	return env, nil
}

// library returns the library, opening it on first use.
func (s *Server) library() (*docstore.Library, error) {
	env, err := s.environment()
	if err != nil {
		return nil, err
	}
	return env.Library, nil
}

// resolve turns document references (IDs, ID prefixes, file names) into
// IDs; none means every document.
func resolve(l *docstore.Library, refs []string) ([]docstore.DocID, error) {
	ids, err := l.ResolveAll(refs)
	if errors.Is(err, docstore.ErrNotFound) {
		return nil, fix.With(err, "Call list_documents for the documents' IDs and names.")
	}
	return ids, err
}

// scope is the documents a search or a question over refs reads: those
// named, or, when none is, the latest version of every document (nil
// when that is every document).
func scope(l *docstore.Library, refs []string) ([]docstore.DocID, error) {
	if len(refs) == 0 {
		return l.Versions().Scope()
	}
	return resolve(l, refs)
}

// document returns the document ref names.
func document(l *docstore.Library, ref string) (*docstore.Document, error) {
	if strings.TrimSpace(ref) == "" {
		return nil, fix.With(errors.New("no document given"), "Give a document's ID (or an ID prefix, or its file name) from list_documents.")
	}
	ids, err := resolve(l, []string{ref})
	if err != nil {
		return nil, err
	}
	return l.Document(ids[0])
}

// userError is an error as a tool reports it: the reason, then on the
// lines below what to do, each made printable, as the command line
// prints them.
type userError struct {
	err error
	msg string
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// toolError makes err a userError.
func toolError(err error) error {
	reason, how := fix.Message(err)
	if how == "" {
		how = docstore.Fix(err)
	}
	msg := textproc.Printable(reason)
	if how != "" {
		msg += "\n" + textproc.Printable(how)
	}
	return &userError{err: err, msg: msg}
}

// addTool registers a tool whose input schema is In's, tuned by tune
// (enumerations, bounds, defaults the Go type cannot say), and whose
// output is Out as structured content and as JSON text, every unsafe
// character escaped. An error from h is a tool error (toolError).
func addTool[In, Out any](s *Server, t *mcp.Tool, tune func(in *jsonschema.Schema), h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the input schema of %s: %v", t.Name, err))
	}
	if tune != nil {
		tune(in)
	}
	t.InputSchema = in
	s.inputs[t.Name] = in
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, input In) (*mcp.CallToolResult, Out, error) {
		out, err := h(ctx, req, input)
		if err != nil {
			return nil, out, toolError(err)
		}
		var b bytes.Buffer
		if err := textproc.WriteJSON(&b, out, ""); err != nil {
			return nil, out, err
		}
		text := strings.TrimSuffix(b.String(), "\n")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
	})
}

// property returns the schema of in's property name; a tool's tune
// function sets what the Go type cannot say.
func property(in *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := in.Properties[name]
	if !ok {
		panic("mcpserver: no input property " + name)
	}
	return p
}

// bounds sets an integer property's range and default.
func bounds(in *jsonschema.Schema, name string, lo, hi, def int) {
	p := property(in, name)
	p.Minimum, p.Maximum = ptr(float64(lo)), ptr(float64(hi))
	if def != 0 {
		p.Default = []byte(fmt.Sprint(def))
	}
}

func ptr[T any](v T) *T { return &v }

// numericStrings lets a tool call give a number as a numeric string
// ("page": "3"): some clients send every argument as a string (the MCP
// Inspector's CLI 0.15 does, from its --tool-arg key=value), and the
// SDK's schema validation would refuse them. Only an argument whose
// property is a number or an integer, and whose string reads as one, is
// rewritten; anything else reaches the validation as sent, and is refused
// with its reason.
func (s *Server) numericStrings(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			if in := s.inputs[call.Params.Name]; in != nil {
				call.Params.Arguments = numbersFromStrings(call.Params.Arguments, in)
			}
		}
		return next(ctx, method, req)
	}
}

// numbersFromStrings returns args with each string argument that in's
// schema wants as a number (or integer) and that reads as one written as
// that number; args itself when there is none.
func numbersFromStrings(args json.RawMessage, in *jsonschema.Schema) json.RawMessage {
	var fields map[string]json.RawMessage
	if len(args) == 0 || json.Unmarshal(args, &fields) != nil {
		return args
	}
	changed := false
	for name, raw := range fields {
		p := in.Properties[name]
		if p == nil || len(raw) == 0 || raw[0] != '"' {
			continue
		}
		integer, number := wantsNumber(p)
		if !integer && !number {
			continue
		}
		var str string
		if json.Unmarshal(raw, &str) != nil {
			continue
		}
		str = strings.TrimSpace(str)
		// As JSON writes it ("3", not "+3" or "03"), and in range.
		if !json.Valid([]byte(str)) {
			continue
		}
		if integer {
			if _, err := strconv.ParseInt(str, 10, 64); err != nil {
				continue
			}
		} else if f, err := strconv.ParseFloat(str, 64); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		fields[name] = json.RawMessage(str)
		changed = true
	}
	if !changed {
		return args
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return args
	}
	return out
}

// wantsNumber reports whether a property's schema takes an integer, or a
// number, and no string (a property that takes strings keeps them).
func wantsNumber(p *jsonschema.Schema) (integer, number bool) {
	types := p.Types
	if p.Type != "" {
		types = append(types, p.Type)
	}
	for _, t := range types {
		switch t {
		case "string":
			return false, false
		case "integer":
			integer = true
		case "number":
			number = true
		}
	}
	return integer && !number, number
}
