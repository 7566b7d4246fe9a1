package docx

import (
	"fmt"
	"strings"
	"testing"
)

// tokens lists what the scanner reads from doc, one token a line.
func tokens(doc string) (string, error) {
	s := &scanner{data: []byte(doc)}
	var out []string
	for {
		t, err := s.next()
		if err == errEOF {
			return strings.Join(out, "\n"), nil
		}
		if err != nil {
			return strings.Join(out, "\n"), err
		}
		switch t.kind {
		case tokStart:
			out = append(out, fmt.Sprintf("<%s:%s val=%q>", t.prefix, t.local, t.attr("val")))
		case tokEnd:
			out = append(out, fmt.Sprintf("</%s:%s>", t.prefix, t.local))
		case tokText:
			out = append(out, fmt.Sprintf("%q", t.text))
		}
	}
}

func TestScanner(t *testing.T) {
	t.Parallel()
	got, err := tokens(`<?xml version="1.0"?><!-- a > comment --><w:p a='1>2' w:val="x &amp; &#x263A; &lt;y&gt;"><w:t>a &quot;b&quot; &#65;</w:t><w:br/><![CDATA[<raw>&amp;]]></w:p>`)
	want := `<w:p val="x & ☺ <y>">
<w:t val="">
"a \"b\" A"
</w:t>
<w:br val="">
</w:br>
"<raw>&amp;"
</w:p>`
	if err != nil || got != want {
		t.Errorf("got %v\n%s\nwant\n%s", err, got, want)
	}
	for _, bad := range []string{"<w:p><w:t>cut", "<w:p attr=\"open>", "</w:p>", "<w:t>&nbsp;</w:t>", "<w:t>&#xD800;</w:t>", "<!-- open", "<>"} {
		if _, err := tokens(bad); err == nil || !strings.Contains(err.Error(), "XML syntax error on line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	var seen []string
	tok := token{attrs: []byte(` xmlns="d" xmlns:w="W" w:val="v"`)}
	tok.namespaces(func(p, u string) { seen = append(seen, p+"="+u) })
	if strings.Join(seen, " ") != "=d w=W" {
		t.Errorf("namespaces %v", seen)
	}
}
