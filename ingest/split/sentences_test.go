package split

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func texts(text string, sents []Span) []string {
	out := make([]string, len(sents))
	for i, s := range sents {
		out[i] = text[s.Start:s.End]
	}
	return out
}

func TestSentences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"abbreviations, decimals, URL", "Dr. Smith et al. (2019) found 3.5% of U.S. cases, e.g. in Fig. 2, see https://example.com/a.b?c=d. Next sentence.",
			[]string{"Dr. Smith et al. (2019) found 3.5% of U.S. cases, e.g. in Fig. 2, see https://example.com/a.b?c=d.", "Next sentence."}},
		{"initials", "J. R. R. Tolkien wrote it. He was a philologist.",
			[]string{"J. R. R. Tolkien wrote it.", "He was a philologist."}},
		{"initial before the article-like A", "The series is written by K. A. Applegate. With respect to continuity, it is second.",
			[]string{"The series is written by K. A. Applegate.", "With respect to continuity, it is second."}},
		{"initial ends a sentence before a starter", "They fought in World War I. The war ended in 1918.",
			[]string{"They fought in World War I.", "The war ended in 1918."}},
		{"money and trailing ellipsis", "It costs $1.50. Then...",
			[]string{"It costs $1.50.", "Then..."}},
		{"code-like tokens", "Use x.foo() and os.path.join. Then call it.",
			[]string{"Use x.foo() and os.path.join.", "Then call it."}},
		{"closing quote after the period", `He said "Stop." Then he left.`,
			[]string{`He said "Stop."`, "Then he left."}},
		{"quote then lowercase", `"Stop." he said. "Why?" she asked. Nobody knew.`,
			[]string{`"Stop." he said.`, `"Why?" she asked.`, "Nobody knew."}},
		{"curly quotes and brackets", "He said “Stop.” (Then he left.) It rained.",
			[]string{"He said “Stop.”", "(Then he left.)", "It rained."}},
		{"?! runs", "Really?! Yes. What?!? No way!! OK.",
			[]string{"Really?!", "Yes.", "What?!?", "No way!!", "OK."}},
		{"ellipses", "He paused... Then he left. Wait... what? It trails off… But then it rains.",
			[]string{"He paused...", "Then he left.", "Wait... what?", "It trails off…", "But then it rains."}},
		{"ellipsis inside a title", `It is from "In a Perfect World..." (2009). The song charted.`,
			[]string{`It is from "In a Perfect World..." (2009).`, "The song charted."}},
		{"numbered list", "1. First item\n2. Second item\n10) Tenth item",
			[]string{"1. First item", "2. Second item", "10) Tenth item"}},
		{"list items with sentences", "Steps:\n1. Open it. It is easy.\n2. Close it.",
			[]string{"Steps:", "1. Open it.", "It is easy.", "2. Close it."}},
		{"clause numbers stay with their clause", "5.1. Either party may terminate. 5.2. Termination is not a waiver. Item 1A. Risk Factors. Section 4(b). The fee is due.",
			[]string{"5.1. Either party may terminate.", "5.2. Termination is not a waiver.", "Item 1A. Risk Factors.", "Section 4(b). The fee is due."}},
		{"a sentence ending in a number still ends", "The answer is 42. Version 2.0. It works. See note 5. Then stop.",
			[]string{"The answer is 42.", "Version 2.0.", "It works.", "See note 5.", "Then stop."}},
		{"bullets", "- apples\n- pears\n* plums\n• figs\n+ dates",
			[]string{"- apples", "- pears", "* plums", "• figs", "+ dates"}},
		{"CJK terminators", "我爱北京。天安门很大！真的吗？是的；好",
			[]string{"我爱北京。", "天安门很大！", "真的吗？", "是的；", "好"}},
		{"CJK closers", "他说：「好。」然后走了。",
			[]string{"他说：「好。」", "然后走了。"}},
		{"ASCII ? before CJK", "真的吗?是的。",
			[]string{"真的吗?", "是的。"}},
		{"Japanese", "今日は晴れです。明日は雨でしょう！",
			[]string{"今日は晴れです。", "明日は雨でしょう！"}},
		{"Jr. before a bracket", "Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker.",
			[]string{"Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker."}},
		{"acronym then starter", "The capital is Washington, D.C. It is on the Potomac.",
			[]string{"The capital is Washington, D.C.", "It is on the Potomac."}},
		{"acronym mid-sentence", "It is in the U.S. state of Kansas. As of 2010, 9,984 people lived there.",
			[]string{"It is in the U.S. state of Kansas.", "As of 2010, 9,984 people lived there."}},
		{"Inc. mid and at end", "He worked at Apple Inc. in 2001. He joined Apple Inc. It was 1997.",
			[]string{"He worked at Apple Inc. in 2001.", "He joined Apple Inc.", "It was 1997."}},
		{"figures and equations", "See Fig. 3 and Eq. 4 for details. Vol. 2 is lost.",
			[]string{"See Fig. 3 and Eq. 4 for details.", "Vol. 2 is lost."}},
		{"a.m. and p.m.", "The meeting is at 3 p.m. tomorrow. It ended at 5 p.m. The next day was calm.",
			[]string{"The meeting is at 3 p.m. tomorrow.", "It ended at 5 p.m.", "The next day was calm."}},
		{"titles", "Mr. and Mrs. Smith met Prof. Jones and Dr. Who. They talked.",
			[]string{"Mr. and Mrs. Smith met Prof. Jones and Dr. Who.", "They talked."}},
		{"No. as number and as word", "No. 5 is mine. No. It is not.",
			[]string{"No. 5 is mine.", "No.", "It is not."}},
		{"ordinary words are not abbreviations", "He studied modern art. Picasso was his idol. They wed. Ed came too.",
			[]string{"He studied modern art.", "Picasso was his idol.", "They wed.", "Ed came too."}},
		{"lit. and circa.", `Seto no Hanayome, lit. "The Inland Sea Bride", was created "circa." 1450 by him.`,
			[]string{`Seto no Hanayome, lit. "The Inland Sea Bride", was created "circa." 1450 by him.`}},
		{"e.g. before a capital", "Bands, e.g. The Beatles, were popular. Others were not.",
			[]string{"Bands, e.g. The Beatles, were popular.", "Others were not."}},
		{"years and versions", "He was born in 1950. He died in 2010. Version 1.2.3 is out.",
			[]string{"He was born in 1950.", "He died in 2010.", "Version 1.2.3 is out."}},
		{"possessive is not an initial", "He lived there since the mid-ninety's. Mr. Nyce was active.",
			[]string{"He lived there since the mid-ninety's.", "Mr. Nyce was active."}},
		{"URL at the end", "Visit www.example.com. It is free.",
			[]string{"Visit www.example.com.", "It is free."}},
		{"footnote reference", "It rained.[1] Then it stopped.[a] Done.",
			[]string{"It rained.[1]", "Then it stopped.[a]", "Done."}},
		{"no space, no boundary", "Yahoo!7 and a.b.c and 3.14 and end.The",
			[]string{"Yahoo!7 and a.b.c and 3.14 and end.The"}},
		{"lowercase continues", "It was founded in St. Louis. it continues. Yes.",
			[]string{"It was founded in St. Louis. it continues.", "Yes."}},
		{"blank lines", "First paragraph without period\n\nSecond paragraph\n\n\n  Third  ",
			[]string{"First paragraph without period", "Second paragraph", "Third"}},
		{"no-break and ideographic spaces", "Dr.\u00a0Smith arrived.\u00a0Then he left.\u3000好。",
			[]string{"Dr.\u00a0Smith arrived.", "Then he left.", "好。"}},
		{"CRLF", "One.\r\nTwo\r\n\r\nThree.\r\n",
			[]string{"One.", "Two", "Three."}},
		{"table of contents leader", "Introduction . . . . . . 5\nMethods . . . . . . . . 9",
			[]string{"Introduction . . . . . . 5\nMethods . . . . . . . . 9"}},
		{"HotpotQA layout", "Ed Wood (film)\nEd Wood is a 1994 American biographical period comedy-drama film directed and produced by Tim Burton. It stars Johnny Depp as cult filmmaker Ed Wood.\n\nScott Derrickson\nScott Derrickson (born July 16, 1966) is an American director, screenwriter and producer. He lives in Los Angeles, California.\n",
			[]string{"Ed Wood (film)", "Ed Wood is a 1994 American biographical period comedy-drama film directed and produced by Tim Burton.", "It stars Johnny Depp as cult filmmaker Ed Wood.",
				"Scott Derrickson", "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer.", "He lives in Los Angeles, California."}},
		{"title over a short paragraph", "Ed Wood\nEdward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker.",
			[]string{"Ed Wood", "Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker."}},
		{"one paragraph per line", "The first paragraph is long enough that no editor would have wrapped it at this column, and it goes on and on past every column a wrapping editor would choose, without a final stop\nThe second paragraph is also one line of text that runs on well past any wrapping column an editor would use, because its author let the viewer wrap it instead",
			[]string{"The first paragraph is long enough that no editor would have wrapped it at this column, and it goes on and on past every column a wrapping editor would choose, without a final stop",
				"The second paragraph is also one line of text that runs on well past any wrapping column an editor would use, because its author let the viewer wrap it instead"}},
		{"hard-wrapped prose", "CHAPTER I\nThe Project Gutenberg text is wrapped at seventy columns, so a single\nnewline inside a paragraph is not a boundary, and sentences run on from\none line to the next. This one ends here; the next one starts on the\nsame line and ends at the close of the paragraph.\n\nA new paragraph.",
			[]string{"CHAPTER I",
				"The Project Gutenberg text is wrapped at seventy columns, so a single\nnewline inside a paragraph is not a boundary, and sentences run on from\none line to the next.",
				"This one ends here; the next one starts on the\nsame line and ends at the close of the paragraph.",
				"A new paragraph."}},
		{"Project Gutenberg", "CHAPTER I.\nDown the Rabbit-Hole\n\n\nAlice was beginning to get very tired of sitting by her sister on the\nbank, and of having nothing to do: once or twice she had peeped into\nthe book her sister was reading, but it had no pictures or\nconversations in it, “and what is the use of a book,” thought Alice\n“without pictures or conversations?”\n\nSo she was considering in her own mind (as well as she could, for the\nhot day made her feel very sleepy and stupid), whether the pleasure of\nmaking a daisy-chain would be worth the trouble of getting up and\npicking the daisies, when suddenly a White Rabbit with pink eyes ran\nclose by her. There was nothing so _very_ remarkable in that.\n",
			[]string{"CHAPTER I.", "Down the Rabbit-Hole",
				"Alice was beginning to get very tired of sitting by her sister on the\nbank, and of having nothing to do: once or twice she had peeped into\nthe book her sister was reading, but it had no pictures or\nconversations in it, “and what is the use of a book,” thought Alice\n“without pictures or conversations?”",
				"So she was considering in her own mind (as well as she could, for the\nhot day made her feel very sleepy and stupid), whether the pleasure of\nmaking a daisy-chain would be worth the trouble of getting up and\npicking the daisies, when suddenly a White Rabbit with pink eyes ran\nclose by her.",
				"There was nothing so _very_ remarkable in that."}},
		{"RFC style", "1.  Introduction\n\n   The Transmission Control Protocol is intended for use as a highly\n   reliable host-to-host protocol between hosts in packet-switched\n   computer communication networks.  It is described here.\n",
			[]string{"1.  Introduction",
				"The Transmission Control Protocol is intended for use as a highly\n   reliable host-to-host protocol between hosts in packet-switched\n   computer communication networks.",
				"It is described here."}},
		{"PDF text layout", "1.2 Related software\n\nR can be regarded as an implementation of the S language which was developed at Bell Laboratories by Rick Becker, John Chambers and Allan Wilks. For R, the basic reference is The New S Language by Richard A. Becker, John M. Chambers and Allan R. Wilks.\n\n> x <- c(10.4, 5.6, 3.1, 6.4, 21.7)\n> mean(x)\n[1] 9.52\n\nThe next paragraph.",
			[]string{"1.2 Related software",
				"R can be regarded as an implementation of the S language which was developed at Bell Laboratories by Rick Becker, John Chambers and Allan Wilks.",
				"For R, the basic reference is The New S Language by Richard A. Becker, John M. Chambers and Allan R. Wilks.",
				"> x <- c(10.4, 5.6, 3.1, 6.4, 21.7)\n> mean(x)\n[1] 9.52", "The next paragraph."}},
		{"Markdown", "# Title\nIntro text. More.\n\n## Sub\n- a\n- b\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nx := 1. Foo()\n\ny := 2\n```\nAfter.",
			[]string{"# Title", "Intro text.", "More.", "## Sub", "- a", "- b", "| a | b |\n|---|---|\n| 1 | 2 |", "```go\nx := 1. Foo()\n\ny := 2\n```", "After."}},
		{"setext headings and rules", "Title\n=====\nText here.\n\n***\n\nSub\n---\nMore.",
			[]string{"Title\n=====", "Text here.", "***", "Sub\n---", "More."}},
		{"unclosed fence is prose", "```\nSome text. More text.",
			[]string{"```", "Some text.", "More text."}},
		{"grid table", "Results:\n+-----+-----+\n| a   | 1.5 |\n+=====+=====+\n| b   | 2.  |\n+-----+-----+\nDone.",
			[]string{"Results:", "+-----+-----+\n| a   | 1.5 |\n+=====+=====+\n| b   | 2.  |\n+-----+-----+", "Done."}},
		{"fence closes on a long enough fence", "````\ncode\n```\nstill code\n`````\nProse. More.",
			[]string{"````\ncode\n```\nstill code\n`````", "Prose.", "More."}},
		{"numbered headings", "1.5 Using R interactively\nWhen you use the R program it issues a prompt.\n> x <- 1\n> y <- 2\n> z <- 3\n3.5 percent of users never quit.\n10.6.3 Recursive numerical integration\nText.",
			[]string{"1.5 Using R interactively", "When you use the R program it issues a prompt.", "> x <- 1\n> y <- 2\n> z <- 3\n3.5 percent of users never quit.", "10.6.3 Recursive numerical integration", "Text."}},
		{"hashtag and include are not headings", "#include <stdio.h>\n#hashtag",
			[]string{"#include <stdio.h>\n#hashtag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sentences(tt.text)
			checkInvariants(t, tt.text, got)
			if g := texts(tt.text, got); !slices.Equal(g, tt.want) {
				t.Errorf("Sentences(%q)\n got %q\nwant %q", tt.text, g, tt.want)
			}
		})
	}
}

// TestLongRuns checks that text with no boundary is cut into pieces of at
// most MaxSentenceBytes, at newlines when there are any, at spaces
// otherwise, and into pieces of similar size.
func TestLongRuns(t *testing.T) {
	t.Parallel()
	var table strings.Builder
	for i := range 60 {
		table.WriteString("| row " + strings.Repeat("x", i%7) + " | 12.5 | 3,400 |\n")
	}
	var terms strings.Builder // a table as PDF text arrives: one cell a line
	for i := range 40 {
		fmt.Fprintf(&terms, "dist%d\nshape%d, scale, ncp\n", i, i)
	}
	words := strings.Repeat("lorem ipsum dolor sit amet ", 80) // 2,160 bytes, no stop
	cjk := strings.Repeat("汉字文本没有标点符号", 60)                    // 1,800 bytes
	for _, tc := range []struct {
		name, text string
		endsAt     func(text string, s Span) bool
	}{
		{"table", table.String(), func(text string, s Span) bool { return s.End == len(text)-1 || text[s.End] == '\n' }},
		{"pdf table", terms.String(), func(text string, s Span) bool { return s.End == len(text)-1 || text[s.End] == '\n' }},
		{"words", words, func(text string, s Span) bool { return s.End >= len(text)-1 || text[s.End] == ' ' }},
		{"cjk", cjk, func(string, Span) bool { return true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sents := Sentences(tc.text)
			checkInvariants(t, tc.text, sents)
			if len(sents) < 2 {
				t.Fatalf("got %d sentences, want the run cut", len(sents))
			}
			minLen, maxLen := len(tc.text), 0
			for _, s := range sents {
				if !tc.endsAt(tc.text, s) {
					t.Errorf("piece %q ends at a poor place", tc.text[s.Start:s.End])
				}
				minLen, maxLen = min(minLen, s.End-s.Start), max(maxLen, s.End-s.Start)
			}
			if 2*minLen < maxLen {
				t.Errorf("pieces from %d to %d bytes; want near-equal pieces", minLen, maxLen)
			}
		})
	}
}

// TestSentencesSpans pins exact byte offsets, which citations depend on.
func TestSentencesSpans(t *testing.T) {
	t.Parallel()
	text := "  One.  Two?\n\n\tThree 。Four"
	want := []Span{{2, 6}, {8, 12}, {15, 24}, {24, 28}}
	if got := Sentences(text); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// A 514-byte run with no space to cut at and a stray continuation
	// byte at the ideal cut (257): every candidate scores below zero, and
	// the cut must still fall between runes, not inside the Ⱨ at the
	// window's end (found by FuzzSentences).
	text = strings.Repeat("0", 257) + "\x84" + strings.Repeat("0", 62) + "Ⱨ" + strings.Repeat("0", 191)
	checkInvariants(t, text, Sentences(text))
	if got := Sentences(""); len(got) != 0 {
		t.Errorf("empty text: got %v", got)
	}
	if got := Sentences(" \n\t\u00a0 "); len(got) != 0 {
		t.Errorf("whitespace: got %v", got)
	}
}
