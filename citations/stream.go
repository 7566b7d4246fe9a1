package citations

// Stream turns streamed model text into finished statements: it parses
// LongCite's format, resolves citations through a Numbering and verifies
// each statement offline as it completes, with the same context VerifyAnswer
// uses (the question, earlier statements and their citations). A strategy
// feeds it the model's deltas and emits what comes out.
//
// A Stream is not safe for concurrent use.
type Stream struct {
	p     Parser
	n     *Numbering
	opt   ResolveOptions
	known map[string]bool
}

// NewStream returns a Stream resolving through n; question seeds the
// context for deciding whether a reasoning statement needs a citation.
func NewStream(n *Numbering, question string, opt ResolveOptions) *Stream {
	s := &Stream{n: n, opt: opt, known: map[string]bool{}}
	addTerms(s.known, question)
	return s
}

// Write feeds a delta and returns the statements it completed.
func (s *Stream) Write(delta string) []Statement { return s.finish(s.p.Write(delta)) }

// Close ends the stream and returns what was still open.
func (s *Stream) Close() []Statement { return s.finish(s.p.Close()) }

func (s *Stream) finish(raws []RawStatement) []Statement {
	if len(raws) == 0 {
		return nil
	}
	out := make([]Statement, 0, len(raws))
	for _, r := range raws {
		st := s.n.Statement(r, s.opt)
		verify(&st, s.known)
		addTerms(s.known, st.Text)
		for _, c := range st.Citations {
			addTerms(s.known, c.Text)
		}
		out = append(out, st)
	}
	return out
}
