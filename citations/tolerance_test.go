package citations

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestToleranceCorpus parses each answer of testdata/citations/tolerance
// — in the shapes real models write — over the two sample documents (a
// LAC-S prompt's numbering, 0-72), and compares the statements, their
// citations and their warnings with the golden file beside it. Fed one
// byte at a time, every answer gives the same.
func TestToleranceCorpus(t *testing.T) {
	t.Parallel()
	a, b := samples(t)
	num, err := NewSentenceNumbering(Part{Doc: a}, Part{Doc: b})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "testdata", "citations", "tolerance")
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) < 10 {
		t.Fatalf("%d samples in %s", len(files), dir)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			in := string(raw)
			s := NewStream(num, "", ResolveOptions{})
			whole := append(s.Write(in), s.Close()...)
			s = NewStream(num, "", ResolveOptions{})
			var bytewise []Statement
			for i := 0; i < len(in); i++ {
				bytewise = append(bytewise, s.Write(in[i:i+1])...)
			}
			bytewise = append(bytewise, s.Close()...)
			if !reflect.DeepEqual(whole, bytewise) {
				t.Fatalf("byte by byte:\n%s\nwhole:\n%s", golden(bytewise), golden(whole))
			}
			got := golden(whole)
			gpath := strings.TrimSuffix(path, ".txt") + ".golden"
			if *update {
				if err := os.WriteFile(gpath, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gpath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file; run with -update and review the diff.\n got:\n%s", gpath, got)
			}
		})
	}
}

// golden writes statements as the golden files hold them: each
// statement's text, then its citations as document and sentence range,
// then its warnings.
func golden(sts []Statement) []byte {
	var b bytes.Buffer
	for i, st := range sts {
		fmt.Fprintf(&b, "%d. %s\n", i+1, strings.ReplaceAll(st.Text, "\n", "\n   "))
		for _, c := range st.Citations {
			quote := c.Text
			if utf8.RuneCountInString(quote) > 50 {
				quote = string([]rune(quote)[:50]) + "…"
			}
			fmt.Fprintf(&b, "   cites %s %d-%d: %q\n", c.DocName, c.First, c.Last, quote)
		}
		for _, w := range st.Warnings {
			fmt.Fprintf(&b, "   warning: %s\n", w)
		}
	}
	return b.Bytes()
}
