package split

import (
	"strings"
	"testing"
)

func TestJoinPageBreaks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, page1, page2 string
		want               []string
	}{
		{"a sentence over the break", "Small files tend to get larger, by a constant overhead in the region of\n\n",
			"50 bytes. Random data is coded at 8.05 bits a byte.",
			[]string{"Small files tend to get larger, by a constant overhead in the region of\n\n50 bytes.", "Random data is coded at 8.05 bits a byte."}},
		{"a parenthesis after the break", "Security is equivalent to SHA3-256\n\n", "(but the digest is different).",
			[]string{"Security is equivalent to SHA3-256\n\n(but the digest is different)."}},
		{"a finished sentence", "The ratio is in the region of 10:1.\n\n", "for previous versions it was more.",
			[]string{"The ratio is in the region of 10:1.", "for previous versions it was more."}},
		{"a capital after the break", "Table of options\n\n", "The first option comes first.",
			[]string{"Table of options", "The first option comes first."}},
		{"a numbered heading after the break", "see the notes below\n\n", "2. Installing the package",
			[]string{"see the notes below", "2. Installing the package"}},
	} {
		text := c.page1 + c.page2
		spans := Sentences(text)
		got := JoinPageBreaks(text, spans, []int32{0, int32(len(c.page1))})
		var texts []string
		for _, sp := range got {
			texts = append(texts, text[sp.Start:sp.End])
		}
		if strings.Join(texts, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: got %q, want %q", c.name, texts, c.want)
		}
	}
	// Within a page, a paragraph break is the author's.
	text := "a line that ends open\n\nand a paragraph after it."
	if got := JoinPageBreaks(text, Sentences(text), []int32{0}); len(got) != 2 {
		t.Errorf("no page break: %d spans, want 2", len(got))
	}
}
