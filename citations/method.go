package citations

import (
	"fmt"
	"strings"

	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/internal/textproc"
)

// MethodLine is one line of how an answer was made: a label and what it
// says ("Documents", "R-intro.pdf, R-exts.pdf").
type MethodLine struct{ Label, Text string }

// Method says how a was answered, for the "How it was answered" part of
// an export: the strategy and model, the documents it was asked of, the
// options given, how the evidence was found, the conversation it followed,
// what it cost and the steps it took. Every text is one line, safe for a
// terminal; the exporters escape it for their format.
func Method(a *Answer) []MethodLine {
	var out []MethodLine
	add := func(label, text string) {
		if text != "" {
			out = append(out, MethodLine{label, textproc.OneLine(text)})
		}
	}
	add("Strategy", a.Strategy)
	switch {
	case a.Model != "":
		add("Model", a.Model)
	case a.Usage.LLMCalls == 0:
		add("Model", "none: the statements quote the documents")
	}
	add("Documents", docNames(a.Docs))
	add("Options", strings.Join(a.Options, ", "))
	add("Retrieval", a.Retrieval)
	if f := a.FollowUp; f != nil && len(f.After) > 0 {
		text := "after " + quoteList(f.After)
		if f.Standalone != "" {
			text += "; read as " + strconvQuote(f.Standalone)
		} else {
			text += "; the previous question's words joined the search"
		}
		add("Follow-up", text)
	}
	add("Cost", costLine(a))
	add("Steps", steps(a.Stages))
	if !a.Created.IsZero() {
		add("Asked", a.Created.UTC().Format("2006-01-02 15:04 UTC"))
	}
	return out
}

// docNames lists the scope: "declaration.txt" or "3 documents: a.pdf,
// b.pdf, c.md".
func docNames(docs []DocRef) string {
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = d.Name
		if names[i] == "" {
			names[i] = string(d.ID)
		}
	}
	if len(names) > 1 {
		return humanize.Plural(len(names), "document", "documents") + ": " + strings.Join(names, ", ")
	}
	return strings.Join(names, "")
}

// costLine is the answer's model work and time: "1,280 tokens (1,200 prompt,
// 80 completion) in 1 model call, 2.3 s".
func costLine(a *Answer) string {
	secs := fmt.Sprintf("%.1f s", a.Seconds)
	u := a.Usage
	if u.LLMCalls == 0 {
		return "no model calls, " + secs
	}
	est := ""
	if u.Estimated {
		est = " (estimated: the server reported no usage)"
	}
	line := fmt.Sprintf("%s tokens (%s prompt, %s completion)%s in %s, %s", humanize.Count(u.PromptTokens+u.CompletionTokens),
		humanize.Count(u.PromptTokens), humanize.Count(u.CompletionTokens), est, humanize.Plural(u.LLMCalls, "model call", "model calls"), secs)
	if strings.HasPrefix(a.Strategy, "okra") {
		line += fmt.Sprintf("; OkraLong's cost (input + 4 × output) %s", humanize.Count(int(OkraLongCost(float64(u.PromptTokens), float64(u.CompletionTokens)))))
	}
	return line
}

// OkraLongCost is OkraLong's cost measure (Hui et al. 2025, section 5.1:
// "the total token usage, with output tokens assigned a four times higher
// cost-weight than input tokens"): input tokens plus 4 × output tokens,
// Table 1's cost column before its × 10³.
func OkraLongCost(promptTokens, completionTokens float64) float64 {
	return promptTokens + 4*completionTokens
}

// steps joins the stages an answer went through, each once, without the
// ellipsis a stage in progress shows: "retrieving; reranking; answering".
func steps(stages []string) string {
	var out []string
	seen := map[string]bool{}
	for _, s := range stages {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "…"))
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

func quoteList(qs []string) string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = strconvQuote(q)
	}
	return strings.Join(out, ", ")
}

// strconvQuote puts a question in typographic quotes.
func strconvQuote(s string) string { return "“" + s + "”" }
