// Package mcpserver serves the library to agents over the Model Context
// Protocol (github.com/modelcontextprotocol/go-sdk): `citelens mcp`.
//
// # Tools
//
// Each tool has a JSON schema for its input and its output, and returns
// its result as structured content (with the same JSON as text, for
// clients that read only text):
//
//   - list_documents: the library's documents, with their IDs, names,
//     kinds, pages, headings and when they were added;
//   - search: the sentences that best match a query, ranked through the
//     retrieval answers use (engine.Search, as `citelens search`: BM25
//     over the latest versions, fused with meaning and reordered when an
//     embedding or rerank model is configured), each a citation:
//     document, sentence range, byte range, page as printed, heading path
//     and the exact text;
//   - ask: a question answered by a strategy (engine.Run), statements with
//     their citations and verdicts, warnings and cost; it reports its
//     stages and statements as progress notifications while it works, and
//     stops when the client cancels the call;
//   - read: the exact text of a sentence range, a page or a byte range, so
//     a citation can be checked or read around, of any version of the
//     document (version.go);
//   - verify: whether a cited passage supports a claim — the model's
//     verdict when a model is configured (engine/judge, LongBench-Cite's
//     prompt), the lexical evidence (citations.Explain) otherwise, which
//     the result says; of any version, as read;
//   - add_document: add a file, only when the server allows writes.
//
// Each document is also a resource, citelens://doc/{id}, and each of its
// pages citelens://doc/{id}/page/{n}. The server watches the library
// (watch.go): a document another process or machine adds or removes
// changes the resources within a second, and clients are sent
// notifications/resources/list_changed.
//
// # Arguments
//
// Arguments are validated against the tools' input schemas (by the SDK),
// with one leniency: a number or integer sent as a numeric string
// ("page": "3"), as the MCP Inspector's CLI 0.15 sends every argument, is
// read as the number (Server.numericStrings).
//
// Clients tried: the official TypeScript SDK's client 1.32.2 and the Go
// SDK's v1.8.0, end to end against the citelens binary
// (cmd/citelens/mcp_e2e_test.go); string arguments are replayed by this
// package's tests.
//
// # Errors
//
// A tool that fails returns an MCP tool error (isError) whose text is the
// reason and what to do about it, as the command line prints them
// (internal/fix, docstore.Fix).
//
// # Security
//
//   - Read-only by default: the library is opened read-only, so nothing
//     can be written to it, answers included; Options.AllowWrites opens it
//     for writing, adds add_document and saves answers.
//   - Document text and model output are written to the client as JSON in
//     which every character that could act on a terminal (C0 and C1
//     controls, DEL, bidirectional overrides) is a \u escape
//     (textproc.EscapeJSON): the text reads back exactly, and nothing in
//     it acts on a terminal that shows the traffic. Progress messages and
//     error texts, meant to be shown, are made printable
//     (textproc.OneLine, textproc.Printable).
//   - The model's API key is never sent: nothing here reads it.
//   - Over HTTP (Handler) every request must carry the bearer token; the
//     SDK refuses requests to a loopback listener whose Host header names
//     another host (DNS rebinding). A request without the token gets
//     401 before its body is read and its connection closed.
//   - NewHTTPServer bounds what a client can hold (HTTPOptions): header,
//     body, write and idle timeouts; a cap on connections, at which those
//     that have not carried the token are closed first; a cap on
//     sessions, which expire when idle.
//
// # Concurrency
//
// The server holds the library as the terminal UI does: docstore opens the
// file for each transaction and closes it when idle, so other citelens
// processes add and remove documents while it serves, and a search sees
// a document as soon as its addition is written.
package mcpserver
