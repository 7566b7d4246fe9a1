package raidd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/humanize"
)

// Sentinel errors of the package, wrapped with details where they occur.
var (
	// ErrNeedsDerivation means the scope's derived documents do not exist
	// yet; the error is a *NeedsDerivation with the estimate.
	ErrNeedsDerivation = errors.New("derived documents are needed")
)

// NeedsDerivation is the error of a RAIDD strategy asked about documents
// whose derived documents (summaries and questions) do not exist yet.
// Deriving spends model tokens, so it never happens unasked: the user runs
// `citelens derive` (Command), or asks again with the option derive=yes,
// which derives first and reports its progress as stages. A UI can show
// the estimate and offer both.
type NeedsDerivation struct {
	Strategy string
	Estimate
	// Scope is the number of documents asked about (Docs are those of
	// them that lack derived documents).
	Scope int
	// OtherModel is set when the derived documents are to be written by a
	// model other than the configured one (derive_model): Command names
	// it.
	OtherModel bool
	// Others lists models whose derived documents exist for every
	// document of the scope; derive_model=NAME answers with them.
	Others []string
}

// Error says what is missing, what deriving costs and how to do it.
func (e *NeedsDerivation) Error() string {
	var b strings.Builder
	var what string
	switch {
	case len(e.Docs) == 1:
		what = fmt.Sprintf("%s has", e.Docs[0].Name)
	case len(e.Docs) == e.Scope:
		what = fmt.Sprintf("the %d documents have", len(e.Docs))
	default:
		what = fmt.Sprintf("%d of the %d documents have", len(e.Docs), e.Scope)
	}
	partial := 0
	for _, d := range e.Docs {
		partial += d.Done
	}
	state := "none yet"
	if partial > 0 {
		state = fmt.Sprintf("only part of them (%d of %d chunks)", partial, partial+e.Chunks)
	}
	fmt.Fprintf(&b, "%s retrieves through summaries and questions that %s writes for each %d-token chunk, and %s %s. %s",
		e.Strategy, e.Set.Model, e.Set.Tokens, what, state, e.Fix())
	return b.String()
}

// Unwrap makes errors.Is(err, ErrNeedsDerivation) and errors.Is(err,
// engine.ErrNotPrepared) hold.
func (e *NeedsDerivation) Unwrap() []error { return []error{ErrNeedsDerivation, engine.ErrNotPrepared} }

// Command is the command that derives what is missing.
func (e *NeedsDerivation) Command() string {
	var b strings.Builder
	b.WriteString("citelens derive")
	for _, d := range e.Docs {
		fmt.Fprintf(&b, " --doc %s", d.ID)
	}
	if e.OtherModel {
		fmt.Fprintf(&b, " --model %s", shellQuote(e.Set.Model))
	}
	return b.String()
}

// Fix says how to derive, with the cost.
func (e *NeedsDerivation) Fix() string {
	s := fmt.Sprintf("Deriving them takes about %s model calls and %s tokens: run '%s', or ask again with --opt derive=yes.",
		humanize.Count(e.Calls), humanize.Tokens(e.Tokens()), e.Command())
	if len(e.Others) > 0 {
		s += fmt.Sprintf(" Documents derived by %s exist: --opt derive_model=%s uses them.", strings.Join(e.Others, ", "), shellQuote(e.Others[0]))
	}
	return s
}

// shellQuote quotes s for a shell command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var _ error = (*NeedsDerivation)(nil)

// docName is a document's name for messages.
func docName(d *docstore.Document) string {
	if d.Name != "" {
		return d.Name
	}
	return string(d.ID)
}
