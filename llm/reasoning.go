package llm

import (
	"bytes"
	"strings"
)

// ReasoningSplitter separates a reasoning model's thinking from its answer
// in text that arrives in pieces of any size. Reasoning models (DeepSeek-R1,
// Qwen3, QwQ…) write their thinking first, in a block the protocol does not
// know about:
//
//	<think>… the reasoning …</think>
//	the answer
//
// The block may be named <think>, <thinking> or <reasoning>, in any case; a
// reply may hold more than one. Three shapes need care:
//
//   - the block is never closed (the model spent its output thinking, or
//     forgot): everything after the opening tag is reasoning, and Unclosed
//     reports it;
//   - the opening tag is missing because the server's chat template wrote
//     it into the prompt (DeepSeek-R1 and QwQ on vLLM without a reasoning
//     parser): the reply starts with the reasoning and only "</think>"
//     marks its end. A reply that starts with prose is therefore held back
//     until it is clear what it is: a closing tag makes it reasoning (with
//     any "<statement>" the model drafted in it); an opening reasoning tag
//     or the end of the reply makes it answer. A reply that starts with a
//     tag of its own ("<statement>…") is passed on at once; one in plain
//     prose only when it ends;
//   - a closing tag after the answer has begun, with no opening: it is
//     dropped and counted (Strays), since the text before it, already
//     passed on, may have been reasoning.
//
// How the text is cut into pieces never changes the result. A
// ReasoningSplitter is used from one goroutine; the zero value is ready.
type ReasoningSplitter struct {
	inBlock bool   // inside an opened block
	decided bool   // past the start: no more holding back
	held    []byte // answer text held back at the start
	tag     []byte // a possible reasoning tag being matched, from its '<'
	blocks  int
	strays  int

	answer, reasoning []byte // output of the current Write or Close
}

// reasoningTags are the tags a reasoning block is written with, lower-case.
var reasoningTags = []string{"<think>", "<thinking>", "<reasoning>", "</think>", "</thinking>", "</reasoning>"}

// SplitReasoning splits a whole reply into its answer and its reasoning,
// and reports whether a reasoning block was left open at the end.
func SplitReasoning(text string) (answer, reasoning string, unclosed bool) {
	var s ReasoningSplitter
	a1, r1 := s.Write(text)
	a2, r2 := s.Close()
	return a1 + a2, r1 + r2, s.Unclosed()
}

// Write takes the next piece of the reply and returns the answer text and
// the reasoning it releases (either may be empty: text may be held back).
func (s *ReasoningSplitter) Write(piece string) (answer, reasoning string) {
	s.answer, s.reasoning = s.answer[:0], s.reasoning[:0]
	for i := 0; i < len(piece); {
		if len(s.tag) > 0 {
			i = s.stepTag(piece, i)
			continue
		}
		j := strings.IndexByte(piece[i:], '<')
		if j < 0 {
			s.text(piece[i:])
			break
		}
		s.text(piece[i : i+j])
		s.tag = append(s.tag, '<')
		i += j + 1
	}
	return string(s.answer), string(s.reasoning)
}

// Decide ends the holding back at the start of the reply and returns the
// answer text it releases: the server sends its reasoning apart
// (reasoning_content), so the text cannot hold any.
func (s *ReasoningSplitter) Decide() string {
	s.answer = s.answer[:0]
	s.release()
	return string(s.answer)
}

// Close ends the reply: a tag cut off at the end is text, and text still
// held back is answer. It returns what it releases.
func (s *ReasoningSplitter) Close() (answer, reasoning string) {
	s.answer, s.reasoning = s.answer[:0], s.reasoning[:0]
	if len(s.tag) > 0 {
		t := string(s.tag)
		s.tag = s.tag[:0]
		s.text(t)
	}
	s.release()
	return string(s.answer), string(s.reasoning)
}

// Unclosed reports whether the reply ended inside a reasoning block.
func (s *ReasoningSplitter) Unclosed() bool { return s.inBlock }

// Blocks counts the reasoning blocks seen, closed or not.
func (s *ReasoningSplitter) Blocks() int { return s.blocks }

// Strays counts closing tags that came after the answer had begun, with no
// block open.
func (s *ReasoningSplitter) Strays() int { return s.strays }

// text routes ordinary text to where the splitter stands.
func (s *ReasoningSplitter) text(t string) {
	switch {
	case t == "":
	case s.inBlock:
		s.reasoning = append(s.reasoning, t...)
	case !s.decided:
		s.held = append(s.held, t...)
	default:
		s.answer = append(s.answer, t...)
	}
}

// release passes the held text on as answer and stops holding back.
func (s *ReasoningSplitter) release() {
	s.decided = true
	s.answer = append(s.answer, s.held...)
	s.held = s.held[:0]
}

// stepTag matches one more byte of a possible tag.
func (s *ReasoningSplitter) stepTag(piece string, i int) int {
	c := piece[i]
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	cand := append(s.tag, c)
	for _, t := range reasoningTags {
		if len(cand) <= len(t) && t[:len(cand)] == string(cand) {
			s.tag = cand
			if len(cand) == len(t) {
				s.tag = s.tag[:0]
				s.act(t[1] == '/')
			}
			return i + 1
		}
	}
	// Not a reasoning tag: what was held is text, and c starts afresh (it
	// may be '<'). A tag of another kind at the start means the answer's
	// own format has begun.
	t := string(s.tag)
	s.tag = s.tag[:0]
	if !s.decided && !s.inBlock && tagLike(cand) && len(bytes.TrimSpace(s.held)) == 0 {
		s.release()
	}
	s.text(t)
	return i
}

// act handles a complete reasoning tag.
func (s *ReasoningSplitter) act(closing bool) {
	switch {
	case !closing && s.inBlock:
		// "<think><think>": still one block.
	case !closing:
		if !s.decided {
			s.release() // text before the block is answer
		}
		s.inBlock = true
		s.blocks++
	case s.inBlock:
		s.inBlock = false
	case !s.decided:
		// The reply began inside a block the chat template opened: what
		// was held back is reasoning.
		s.reasoning = append(s.reasoning, s.held...)
		s.held = s.held[:0]
		s.decided = true
		s.blocks++
	default:
		s.strays++
	}
}

// tagLike reports whether b starts like a markup tag: '<' and a letter, or
// "</" and a letter.
func tagLike(b []byte) bool {
	if len(b) > 1 && b[1] == '/' {
		b = b[1:]
	}
	if len(b) < 2 {
		return false
	}
	c := b[1] | 0x20
	return 'a' <= c && c <= 'z'
}
