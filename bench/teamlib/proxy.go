package teamlib

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
)

// Counter is a TCP proxy in front of a PostgreSQL server that counts what
// clients send through it: round trips (a Sync ends each exchange of the
// extended protocol, which pgx uses for statements and batches; a simple
// Query is one too) and statements executed (Execute messages and simple
// Queries). It reads the protocol's framing only, so it counts the
// client's traffic whatever the client, without the server's statistics
// (pg_stat_statements counts statements, not the waits between them).
type Counter struct {
	ln     net.Listener
	target string
	// RoundTrips and Statements are the counts so far.
	RoundTrips, Statements atomic.Int64
	wg                     sync.WaitGroup

	mu sync.Mutex
	// texts are the prepared statements' texts by connection and name;
	// byText counts the statements executed by their text (a Bind of a
	// prepared statement, or a simple Query).
	texts  map[connStmt]string
	byText map[string]int64
	conns  int
}

// connStmt names a prepared statement of one connection.
type connStmt struct {
	conn int
	name string
}

// NewCounter listens on 127.0.0.1 and forwards every connection to
// target (host:port).
func NewCounter(target string) (*Counter, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("teamlib: the counting proxy: %w", err)
	}
	c := &Counter{ln: ln, target: target, texts: map[connStmt]string{}, byText: map[string]int64{}}
	c.wg.Add(1)
	go c.serve()
	return c, nil
}

// Port is the proxy's port on 127.0.0.1.
func (c *Counter) Port() int { return c.ln.Addr().(*net.TCPAddr).Port }

// Close stops accepting; connections end when their clients close them.
func (c *Counter) Close() error {
	err := c.ln.Close()
	c.wg.Wait()
	return err
}

func (c *Counter) serve() {
	defer c.wg.Done()
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", c.target)
		if err != nil {
			client.Close()
			continue
		}
		go func() {
			io.Copy(client, server)
			client.Close()
		}()
		c.mu.Lock()
		c.conns++
		id := c.conns
		c.mu.Unlock()
		go func() {
			c.count(id, server, client)
			server.Close()
		}()
	}
}

// count copies the client's messages to the server, counting them: the
// startup message first (a length and no type), then messages of a
// type byte and a length.
func (c *Counter) count(conn int, dst io.Writer, src io.Reader) {
	var hdr [5]byte
	if _, err := io.ReadFull(src, hdr[:4]); err != nil {
		return
	}
	n := int64(binary.BigEndian.Uint32(hdr[:4]))
	if _, err := dst.Write(hdr[:4]); err != nil || n < 4 {
		return
	}
	if _, err := io.CopyN(dst, src, n-4); err != nil {
		return
	}
	for {
		if _, err := io.ReadFull(src, hdr[:]); err != nil {
			return
		}
		switch hdr[0] {
		case 'S':
			c.RoundTrips.Add(1)
		case 'Q':
			c.RoundTrips.Add(1)
			c.Statements.Add(1)
		case 'E':
			c.Statements.Add(1)
		}
		n := int64(binary.BigEndian.Uint32(hdr[1:]))
		if _, err := dst.Write(hdr[:]); err != nil || n < 4 {
			return
		}
		if hdr[0] != 'P' && hdr[0] != 'B' && hdr[0] != 'Q' {
			if _, err := io.CopyN(dst, src, n-4); err != nil {
				return
			}
			continue
		}
		body := make([]byte, n-4)
		if _, err := io.ReadFull(src, body); err != nil {
			return
		}
		c.note(conn, hdr[0], body)
		if _, err := dst.Write(body); err != nil {
			return
		}
	}
}

// note records a Parse's statement text, or counts a Bind's or a
// Query's statement.
func (c *Counter) note(conn int, typ byte, body []byte) {
	fields := bytes.SplitN(body, []byte{0}, 3)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case typ == 'P' && len(fields) >= 2:
		c.texts[connStmt{conn, string(fields[0])}] = string(fields[1])
	case typ == 'B' && len(fields) >= 2:
		c.byText[c.texts[connStmt{conn, string(fields[1])}]]++
	case typ == 'Q' && len(fields) >= 1:
		c.byText[string(fields[0])]++
	}
}

// ByText returns how many times each statement was executed so far, by
// its text with white space folded.
func (c *Counter) ByText() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int64{}
	for t, n := range c.byText {
		out[strings.Join(strings.Fields(t), " ")] += n
	}
	return out
}
