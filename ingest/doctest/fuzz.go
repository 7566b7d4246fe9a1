package doctest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Damaged returns a copy of base changed by edits, four bytes an edit:
// [op, hi, lo, v], at offset hi<<8|lo in 65,536ths of the file; op%4 is 0
// to set the byte there to v, 1 to insert v, 2 to cut v+1 bytes, 3 to
// cut the file short there. A fuzz target that mutates edits rather than
// a whole file keeps its inputs a few bytes long: what it finds is
// minimized in seconds, where a file of kilobytes takes the minute Go's
// minimizer allows, and a short run spends itself on its first finds.
func Damaged(base, edits []byte) []byte {
	data := bytes.Clone(base)
	for ; len(edits) >= 4 && len(data) > 0; edits = edits[4:] {
		at := (int(edits[1])<<8 | int(edits[2])) * len(data) / 65536
		switch v := edits[3]; edits[0] % 4 {
		case 0:
			data[at] = v
		case 1:
			data = append(data[:at], append([]byte{v}, data[at:]...)...)
		case 2:
			data = append(data[:at], data[min(len(data), at+int(v)+1):]...)
		default:
			data = data[:at]
		}
	}
	return data
}

// Flips returns the edits that flip every step-th byte of base from
// byte first (at most 16 of them), for a fuzz target's seeds.
func Flips(base []byte, first, step int) []byte {
	var edits []byte
	for off := first; off < len(base) && len(edits) < 64; off += step {
		at := off * 65536 / len(base)
		edits = append(edits, 0, byte(at>>8), byte(at), base[off]^0x55)
	}
	return edits
}

// ReplayFinds runs check on each input kept in dir, each a file in the
// format of Go's fuzzing corpus holding one []byte value (what a fuzz
// target found, kept as a test after the target changed its input), as
// a subtest named after its file.
func ReplayFinds(t *testing.T, dir string, check func(t *testing.T, data []byte)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no finds in %s: %v", dir, err)
	}
	for _, name := range files {
		data, err := corpusBytes(name)
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		t.Run(filepath.Base(name), func(t *testing.T) { check(t, data) })
	}
}

// corpusBytes reads a corpus file holding one []byte value.
func corpusBytes(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitN(string(raw), "\n", 3)
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("%s is not a fuzzing corpus file", path)
	}
	lit, ok := strings.CutPrefix(lines[1], "[]byte(")
	data, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if !ok || err != nil {
		return nil, fmt.Errorf("%s does not hold one []byte: %v", path, err)
	}
	return []byte(data), nil
}

// Within runs f and fails t unless f returns within d: the check for
// code that must not hang, which would otherwise stall the whole test
// binary until its timeout.
func Within(t testing.TB, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
	}
}
