package pdftext

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ledongthuc/pdf"
)

func TestDebugGlyphs(t *testing.T) {
	path := os.Getenv("PDF")
	if path == "" {
		t.Skip()
	}
	pn, _ := strconv.Atoi(os.Getenv("PAGE"))
	match := os.Getenv("MATCH")
	f, _ := os.Open(path)
	st, _ := f.Stat()
	r, err := pdf.NewReader(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := walkPages(r.Trailer().Key("Root").Key("Pages"))
	p := pages[pn-1]
	pc := &pageContent{ctx: context.Background(), fonts: newFontCache(), g: gstate{ctm: identity, th: 1}, tm: identity, tlm: identity}
	data, _ := readStream(p.v.Key("Contents"), maxStreamBytes)
	pc.run(data, newResCtx(p.res))
	var line strings.Builder
	for i, g := range pc.glyphs {
		s := fmt.Sprintf("%d: %q u0=%.2f u1=%.2f v=%.2f size=%.2f sp=%v mono=%v\n", i, pc.buf[g.off:g.off+g.n], g.u0, g.u1, g.v, g.size, g.space, g.mono)
		line.WriteString(s)
	}
	for _, l := range strings.Split(line.String(), "\n") {
		if match == "" || strings.Contains(l, match) {
			fmt.Println(l)
		}
	}
}

func TestDebugPages(t *testing.T) {
	path := os.Getenv("PDF")
	if path == "" || os.Getenv("PAGES") == "" {
		t.Skip()
	}
	a, b, _ := strings.Cut(os.Getenv("PAGES"), "-")
	lo, _ := strconv.Atoi(a)
	hi, _ := strconv.Atoi(b)
	f, _ := os.Open(path)
	st, _ := f.Stat()
	res, err := Extract(context.Background(), f, st.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for p := lo; p <= hi; p++ {
		s := int(res.PageStarts[p-1])
		e := len(res.Text)
		if p < len(res.PageStarts) {
			e = int(res.PageStarts[p])
		}
		fmt.Printf("=== page %d [%d,%d)\n%s\n", p, s, e, res.Text[s:e])
	}
}
