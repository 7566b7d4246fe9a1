package teamlib

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
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
}

// NewCounter listens on 127.0.0.1 and forwards every connection to
// target (host:port).
func NewCounter(target string) (*Counter, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("teamlib: the counting proxy: %w", err)
	}
	c := &Counter{ln: ln, target: target}
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
		go func() {
			c.count(server, client)
			server.Close()
		}()
	}
}

// count copies the client's messages to the server, counting them: the
// startup message first (a length and no type), then messages of a
// type byte and a length.
func (c *Counter) count(dst io.Writer, src io.Reader) {
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
		if _, err := io.CopyN(dst, src, n-4); err != nil {
			return
		}
	}
}
