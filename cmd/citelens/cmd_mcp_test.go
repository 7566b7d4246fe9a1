package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --http takes a port alone, :port or host:port, on loopback unless
// --remote says otherwise.
func TestHTTPAddr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in     string
		remote bool
		want   string // "" for an error
	}{
		{"8765", false, "127.0.0.1:8765"},
		{":8765", false, "127.0.0.1:8765"},
		{"127.0.0.1:0", false, "127.0.0.1:0"},
		{"[::1]:80", false, "[::1]:80"},
		{"localhost:80", false, "localhost:80"},
		{"0.0.0.0:80", false, ""},
		{"0.0.0.0:80", true, "0.0.0.0:80"},
		{"192.168.1.5:80", false, ""},
		{"nonsense:", false, ""},
	} {
		got, err := httpAddr(c.in, c.remote)
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("httpAddr(%q, %v) = %q, %v; want %q", c.in, c.remote, got, err, c.want)
		}
	}
}

// The token file is made once, private, and read again after.
func TestBearerToken(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "mcp-token")
	tok, made, err := bearerToken(path)
	if err != nil || !made || len(tok) < 40 {
		t.Fatalf("made %q %v %v", tok, made, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	again, made, err := bearerToken(path)
	if err != nil || made || again != tok {
		t.Errorf("read again: %q %v %v", again, made, err)
	}
	os.WriteFile(path, []byte("  \n"), 0o644)
	if _, _, err := bearerToken(path); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty token file: %v", err)
	}
}
