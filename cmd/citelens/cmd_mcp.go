package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/ingest"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/dbaddr"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/mcpserver"
)

func init() {
	register(&command{
		name:    "mcp",
		args:    "[--allow-writes] [--strategy NAME] [--http ADDR [--token-file PATH] [--remote]]",
		summary: "serve the library to agents over the Model Context Protocol (stdio, or streamable HTTP)",
		run:     runMCP,
	})
}

func runMCP(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["mcp"])
	allowWrites := fs.Bool("allow-writes", false, "offer add_document and save answers in the library (default: read-only)")
	strategy := fs.String("strategy", a.defaultStrategy(), "the strategy `NAME` ask uses when the agent names none")
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (127.0.0.1:PORT; a port alone is on 127.0.0.1) instead of stdio")
	tokenFile := fs.String("token-file", "", "with --http: the bearer token's `PATH`, made with a new token when missing (default: mcp-token beside the config file)")
	remote := fs.Bool("remote", false, "with --http: allow an address other machines can reach")
	if rest, err := parseFlags(a, fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		fmt.Fprintf(a.stderr, "citelens mcp: unexpected argument %q\n", rest[0])
		fs.Usage()
		return errUsage
	}
	if _, ok := engine.Lookup(*strategy); !ok {
		_, err := engine.New(*strategy, nil) // the error lists the strategies
		return err
	}
	srv := mcpserver.New(mcpserver.Options{
		Open:        func() (*engine.Env, error) { return a.mcpEnv(*allowWrites) },
		AllowWrites: *allowWrites,
		Strategy:    *strategy,
		Version:     version,
	})
	defer srv.Close()
	mode := "read-only"
	if *allowWrites {
		mode = "writes allowed"
	}
	if *addr == "" {
		fmt.Fprintf(a.stderr, "citelens mcp: serving %s on stdin and stdout (%s)\n", dbaddr.Redact(a.dbPath), mode)
		in, ok := a.stdin.(io.ReadCloser)
		if !ok {
			in = io.NopCloser(a.stdin)
		}
		return srv.ServeStdio(ctx, in, a.stdout)
	}
	listen, err := httpAddr(*addr, *remote)
	if err != nil {
		return err
	}
	path := *tokenFile
	if path == "" {
		path = filepath.Join(filepath.Dir(config.Path()), "mcp-token")
	}
	token, made, err := bearerToken(path)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fix.With(err, "Choose another port, or stop what is listening on it.")
	}
	hs := srv.NewHTTPServer(token, mcpserver.HTTPOptions{})
	tokenSays := "the bearer token clients must send is in " + path
	if made {
		tokenSays = "a new bearer token, which clients must send, is in " + path
	}
	fmt.Fprintf(a.stderr, "citelens mcp: serving %s at http://%s/mcp (%s); %s\n", dbaddr.Redact(a.dbPath), ln.Addr(), mode, tokenSays)
	if !mcpserver.IsLoopback(ln.Addr().String()) {
		fmt.Fprintln(a.stderr, "citelens mcp: warning: other machines can reach this address; the token is sent in clear over plain HTTP")
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Streams left open by clients end with the server.
	stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(stop); err != nil {
		hs.Close()
	}
	return nil
}

// mcpEnv opens the library for the MCP server, read-only unless writes
// are allowed, with the model configuration.
func (a *app) mcpEnv(write bool) (*engine.Env, error) {
	l, err := a.openLibrary(!write)
	if errors.Is(err, errNoLibrary) {
		return nil, fix.With(fmt.Errorf("%w: %s", mcpserver.ErrNoLibrary, dbaddr.Redact(a.dbPath)), "Add documents with 'citelens add FILE'; they can be added while the server runs.")
	}
	if err != nil {
		return nil, err
	}
	env, err := a.engineEnv(l)
	if err != nil {
		l.Close()
		return nil, err
	}
	return env, nil
}

// httpAddr reads --http: host:port, :port or a port alone, on loopback
// unless given otherwise; a host other machines reach needs --remote.
func httpAddr(s string, remote bool) (string, error) {
	if !strings.Contains(s, ":") {
		s = ":" + s
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", fix.With(fmt.Errorf("--http %q is not an address", s), "Give 127.0.0.1:PORT, or a port alone.")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	addr := net.JoinHostPort(host, port)
	if !mcpserver.IsLoopback(addr) && !remote {
		return "", fix.With(fmt.Errorf("--http %s would let other machines reach the library", addr),
			"Serve on 127.0.0.1 (a port alone does), or add --remote if that is what you want.")
	}
	return addr, nil
}

// minTokenLen is the shortest bearer token accepted from a file: one
// that could be guessed is no lock.
const minTokenLen = 16

// bearerToken reads the token from path, writing a new one there (mode
// 0600) when the file does not exist; made says it did. The file is read
// as add reads a document (a FIFO or a device is refused, not waited on
// or read for ever) and is never changed: one that others can read, or
// that holds a short token, is refused with what to do.
func bearerToken(path string) (token string, made bool, err error) {
	b, err := ingest.ReadRegular(context.Background(), path, 4096)
	switch {
	case err == nil:
		token = strings.TrimSpace(string(b))
		if token == "" {
			return "", false, fix.With(fmt.Errorf("the token file %s is empty", path), "Write a token in it, or remove it for a new one.")
		}
		if n := utf8.RuneCountInString(token); n < minTokenLen || strings.ContainsFunc(token, unicode.IsSpace) {
			return "", false, fix.With(fmt.Errorf("the token file %s holds %d characters, not a token of at least %d without spaces", path, n, minTokenLen),
				"Remove it for a new one, or write a longer token in it.")
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			// Changing the mode of a file the user named (or of what a
			// link points to) behind their back is not ours to do.
			return "", false, fix.With(fmt.Errorf("the token file %s can be read by others (mode %04o)", path, fi.Mode().Perm()),
				"Make it yours alone: chmod 600 %s", path)
		}
		return token, false, nil
	case errors.Is(err, ingest.ErrTooLarge):
		return "", false, fix.With(fmt.Errorf("the token file %s is too large to hold a token", path), "Check --token-file.")
	case !errors.Is(err, os.ErrNotExist):
		return "", false, fix.With(err, "Check --token-file.")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", false, err
	}
	token = mcpserver.NewToken()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", false, fix.With(err, "Check --token-file.")
	}
	if _, err := fmt.Fprintln(f, token); err != nil {
		f.Close()
		return "", false, err
	}
	return token, true, f.Close()
}
