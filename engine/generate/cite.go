package generate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/llm"
)

// CoFSettings are how CiteAnswer runs: the paper's k and l_max, the
// sentence-level citations kept per statement, and how many step-3
// extractions run at once.
type CoFSettings struct {
	K, LMax  int
	Keep     int
	Parallel int
	// Discard applies the paper's filter: an answer with fewer than
	// CoFCitedShare of its statements cited is discarded (ErrUngrounded)
	// rather than kept with a warning. Its statements are then held
	// until the answer is complete.
	Discard bool
}

// PaperCoF are the paper's settings: its retrieval (section 3.2, "l_max =
// 10 and k = 40"), three sentence spans per statement as THUDM/LongCite's
// CoF scripts cut them after step 3, and four extractions at once.
var PaperCoF = CoFSettings{K: 40, LMax: 10, Keep: 3, Parallel: 4}

// CoFChunkCite caps the chunks a statement cites in step 2 (five, as
// THUDM/LongCite's CoF scripts cut them).
const CoFChunkCite = 5

// CoFCitedShare is the share of statements below which CoF's final step
// (section 3.1, "Data Filtering") discards an instance as not grounded in
// the context. citelens keeps the answer and warns.
const CoFCitedShare = 0.2

// fineMaxTokens bounds a step-3 answer: a few spans, or "No relevant
// information". THUDM's script allows 128; a little more leaves room for
// a model that explains itself first.
const fineMaxTokens = 256

// CoFPerSentence is l, the chunks kept per answer sentence:
// min(l_max, ⌈k / n_sent⌉), the paper's min(l_max, (k + n_sent − 1) / n_sent)
// in integer division, so that about k chunks are kept in all.
func CoFPerSentence(k, lMax, sentences int) int {
	if sentences < 1 {
		return 0
	}
	return min(lMax, (k+sentences-1)/sentences)
}

// CiteAnswer adds citations to answer, written without them, and reports
// its statements to rt: steps 2 and 3 of the post-hoc Coarse-to-Fine
// pipeline of the LongCite paper (Zhang et al. 2024, section 3.1, Figures
// 12 and 13), whose first step is the plain answer (LongContextAnswer),
// with settings s. It costs one model call for the chunk-level citations
// and one per statement that cites chunks.
//
//  2. Each sentence of the answer retrieves its top l = min(l_max, ⌈k/n⌉)
//     stored 128-token chunks (n sentences; so about k chunks in all;
//     BM25, fused with dense similarity when an embedding model is
//     configured). The union, in document order, is shown as "Snippet
//     [1]"…, and the model rewrites the answer as
//     <statement>…<cite>[k]</cite></statement> with chunk-level citations
//     (Figure 12).
//  3. For each statement citing chunks, those chunks are expanded by their
//     neighbours, their sentences numbered <C0>, <C1>, … afresh, and the
//     model names the supporting sentences as "[a-b]" spans or answers "No
//     relevant information" (Figure 13). Spans map back to the documents'
//     own sentences; a statement whose chunks support nothing stays
//     uncited. Statements are reported in order as each becomes final.
//
// CoF's last step discards an instance when fewer than 20% of its
// statements are cited; citelens keeps the answer and warns, or, with
// s.Discard, discards it as the paper does (ErrUngrounded).
//
// Each step's failure keeps what the steps before it did: if step 2
// fails, the answer is reported uncited; if a step-3 extraction fails, its
// statement (and any whose extraction had not run) keeps its chunk-level
// citations, marked as such; the answer is then partial, with the error.
//
// Step 3 follows THUDM/LongCite's CoF/3_sentence_level_citation.py rather
// than reading the paper's "each cited chunk" as one call per chunk: one
// call per statement shows all of its cited chunks, each with its
// neighbours, windows that touch merged into one passage. It runs up to
// CoFSettings.Parallel extractions at once.
//
// The cof strategy runs it after its own first step; every other model
// strategy offers it as the repair option (Repair) for a model that
// ignored the citation format.
//
// An answer the steps leave with no statement citing the documents (the
// draft empty, the model's chunk-level reply unreadable, every statement
// unsupported) is not an uncited success: after the warning saying what
// happened, the answer falls back to one from retrieval over the
// question (Fallback).
func CiteAnswer(ctx context.Context, rt *engine.Runtime, answer string, s CoFSettings) error {
	j := &job{rt: rt, k: s.K, lMax: s.LMax, keep: s.Keep, parallel: s.Parallel, discard: s.Discard, verified: citations.Answer{Question: rt.Question()}}
	err := j.cite(ctx, answer)
	if err != nil && ctx.Err() == nil && errors.Is(err, ErrNoStatements) {
		err = nil // cite warned and reported the answer uncited
	}
	if j.discard {
		if n := len(j.verified.Statements); err == nil && float64(j.cited) < CoFCitedShare*float64(n) || n == 0 {
			return fmt.Errorf("%w: %d of %d statements cited, under CoF's %.0f%%", ErrUngrounded, j.cited, n, CoFCitedShare*100)
		}
		for _, st := range j.verified.Statements {
			rt.Statement(st)
		}
	}
	if err != nil || j.cited > 0 {
		return err
	}
	_, err = Fallback(ctx, rt, "CoF's citing steps found no citation for the answer")
	return err
}

// job is one answer being cited.
type job struct {
	rt       *engine.Runtime
	k, lMax  int
	keep     int // sentence-level citations kept per statement
	parallel int
	verified citations.Answer // the statements so far, for verifying the next in context
	cited    int
	discard  bool // hold the statements for CoF's filter (CoFSettings.Discard)
}

// cite runs steps 2 and 3 over draft, the model's plain answer.
func (j *job) cite(ctx context.Context, draft string) error {
	rt := j.rt
	sentences := AnswerSentences(draft)
	if len(sentences) == 0 {
		rt.Warn("the model's answer was empty")
		return nil
	}
	picks, err := j.retrieve(ctx, sentences)
	if err != nil {
		if ctx.Err() == nil {
			rt.Warn(fmt.Sprintf("retrieving chunks for the citations failed (%v); the answer is shown without them", err))
			j.uncited(sentences)
		}
		return err
	}
	if len(picks) == 0 {
		rt.Warn("no chunk of the documents shares a word with the answer, so it is left uncited")
		j.uncited(sentences)
		j.checkGrounding()
		return nil
	}
	items, err := j.chunkCitations(ctx, draft, picks)
	if err != nil {
		if ctx.Err() == nil {
			rt.Warn(fmt.Sprintf("citations could not be added (%v); the answer is shown without them", err))
			j.uncited(sentences)
		}
		return err
	}
	err = j.refine(ctx, items)
	if ctx.Err() == nil {
		j.checkGrounding()
	}
	return err
}

// final verifies st in the context of the statements before it and
// reports it.
func (j *job) final(st citations.Statement) {
	j.verified.Statements = append(j.verified.Statements, st)
	citations.VerifyAnswer(&j.verified)
	st = j.verified.Statements[len(j.verified.Statements)-1]
	if len(st.Citations) > 0 {
		j.cited++
	}
	if !j.discard {
		j.rt.Statement(st)
	}
}

// uncited finishes the answer as the draft's sentences without citations.
func (j *job) uncited(sentences []string) {
	for _, s := range sentences {
		j.final(citations.Statement{Text: s})
	}
}

// checkGrounding warns, as CoF's filter would discard the answer, when
// fewer than CoFCitedShare of the statements are cited.
func (j *job) checkGrounding() {
	n := len(j.verified.Statements)
	if n == 0 || float64(j.cited) >= CoFCitedShare*float64(n) || j.discard {
		return
	}
	j.rt.Warn(fmt.Sprintf("only %d of %d statements found support in the documents (CoF discards answers with fewer than %.0f%% cited): the answer may rest on the model's own knowledge",
		j.cited, n, CoFCitedShare*100))
}

// --- Step 2: retrieval and chunk-level citations.

// pick is one retrieved chunk: chunk Chunk of the Doc-th document of the
// scope, and the best rank any answer sentence gave it.
type pick struct {
	Doc, Chunk, Rank int
}

// retrieve returns the union of each answer sentence's top l chunks, in
// document order, trimmed (worst rank first) to what step 2's prompt has
// room for.
func (j *job) retrieve(ctx context.Context, sentences []string) ([]pick, error) {
	rt := j.rt
	l := CoFPerSentence(j.k, j.lMax, len(sentences))
	rt.Stagef("retrieving up to %s for each of the answer's %d sentences", humanize.Plural(l, "chunk", "chunks"), len(sentences))
	// With an embedding model, every sentence is embedded in one call.
	search := rt.Retrieval()
	if err := search.Prime(ctx, docstore.ChunkLevel, sentences); err != nil {
		return nil, err
	}
	best := map[[2]int]int{}
	for _, q := range sentences {
		ps, err := search.Chunks(ctx, q, retrieve.Options{K: l})
		if err != nil {
			return nil, err
		}
		for rank, p := range ps {
			d, ok := rt.Place(p.Doc)
			if !ok {
				continue
			}
			c, ok := StoredChunk(rt.Docs()[d], p.First, p.Last)
			if !ok {
				continue
			}
			key := [2]int{d, c}
			if r, seen := best[key]; !seen || rank < r {
				best[key] = rank
			}
		}
	}
	picks := make([]pick, 0, len(best))
	for k, r := range best {
		picks = append(picks, pick{Doc: k[0], Chunk: k[1], Rank: r})
	}
	picks = j.fitChunks(picks)
	slices.SortFunc(picks, byPlace)
	return picks, nil
}

// byPlace orders picks by document and chunk.
func byPlace(a, b pick) int { return cmp.Or(cmp.Compare(a.Doc, b.Doc), cmp.Compare(a.Chunk, b.Chunk)) }

// fitChunks keeps the best-ranked picks whose snippets fit step 2's prompt
// in the model's context, saying so when some do not.
func (j *job) fitChunks(picks []pick) []pick {
	empty, _ := citations.NewChunkNumbering()
	avail := j.rt.Config().PromptBudget() - llm.EstimatePromptTokens(chunkMessages(j.rt.Question(), "", empty))
	slices.SortStableFunc(picks, func(a, b pick) int { return cmp.Or(cmp.Compare(a.Rank, b.Rank), byPlace(a, b)) })
	kept := picks[:0:0]
	for _, p := range picks {
		d := j.rt.Docs()[p.Doc]
		start, end := d.ChunkSpan(p.Chunk)
		t := ChunkTokens(len(picks), d.Text[start:end])
		if t <= avail {
			avail -= t
			kept = append(kept, p)
		}
	}
	if len(kept) < len(picks) {
		j.rt.Stagef("the %d retrieved chunks exceed the model's context: kept the best %d", len(picks), len(kept))
	}
	return kept
}

// item is one statement of step 2's answer.
type item struct {
	raw citations.RawStatement
	// chunks are the distinct chunks it cites (at most CoFChunkCite), in the
	// order cited.
	chunks []pick
	// coarse is the statement with its chunk-level citations resolved:
	// what it keeps if step 3 cannot refine it.
	coarse citations.Statement
}

// chunkCitations runs step 2: the draft with chunk-level citations, one
// item per statement.
func (j *job) chunkCitations(ctx context.Context, draft string, picks []pick) ([]item, error) {
	parts := make([]citations.ChunkPart, len(picks))
	for i, p := range picks {
		parts[i] = citations.ChunkOf(j.rt.Docs()[p.Doc], p.Chunk)
	}
	num, err := citations.NewChunkNumbering(parts...)
	if err != nil {
		return nil, err
	}
	j.rt.Stagef("adding chunk-level citations from %s", humanize.Plural(len(picks), "snippet", "snippets"))
	reply, err := j.rt.Model().Chat(ctx, "the answer with chunk-level citations", llm.ChatRequest{Messages: chunkMessages(j.rt.Question(), draft, num)})
	if err != nil {
		return nil, err
	}
	text := reply.Text
	if i := strings.LastIndex(text, "[Answer with Citations]"); i >= 0 {
		text = text[i+len("[Answer with Citations]"):]
	}
	raws := citations.Parse(text)
	if len(raws) == 0 {
		return nil, ErrNoStatements
	}
	items := make([]item, len(raws))
	for i, raw := range raws {
		it := item{raw: raw, coarse: num.Statement(raw, citations.ResolveOptions{MaxCitations: CoFChunkCite})}
	refs:
		for _, r := range raw.Refs {
			if r.First < 1 || r.Last > len(picks) || r.Last < r.First {
				continue // Resolve has said why
			}
			for k := r.First; k <= r.Last; k++ {
				p := picks[k-1]
				if !slices.Contains(it.chunks, p) {
					if len(it.chunks) == CoFChunkCite {
						break refs
					}
					it.chunks = append(it.chunks, p)
				}
			}
		}
		items[i] = it
	}
	return items, nil
}

// --- Step 3: sentence-level citations.

// result is one statement's step 3.
type result struct {
	st  citations.Statement
	err error
}

// refine runs step 3 for every statement citing chunks, up to parallel at
// once, and finishes the statements in order as their results come. After
// a failure, extractions not yet started are cancelled and their
// statements keep their chunk-level citations.
func (j *job) refine(ctx context.Context, items []item) error {
	todo := 0
	for _, it := range items {
		if len(it.chunks) > 0 {
			todo++
		}
	}
	if todo > 0 {
		j.rt.Stagef("narrowing the citations of %s to sentences", humanize.Plural(todo, "statement", "statements"))
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan result, len(items))
	for i, it := range items {
		if len(it.chunks) > 0 {
			results[i] = make(chan result, 1)
		}
	}
	// Extractions start in statement order, so the first statements are
	// final first.
	go func() {
		sem := make(chan struct{}, j.parallel)
		for i, it := range items {
			if results[i] == nil {
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-wctx.Done():
				results[i] <- result{err: wctx.Err()}
				continue
			}
			if err := wctx.Err(); err != nil {
				<-sem
				results[i] <- result{err: err}
				continue
			}
			go func() {
				res := j.extract(wctx, it)
				if res.err != nil {
					cancel() // before the slot is freed: nothing starts after a failure
				}
				results[i] <- res
				<-sem
			}()
		}
	}()
	var failed error
	for i, it := range items {
		if results[i] == nil {
			j.final(it.coarse)
			continue
		}
		res := <-results[i]
		if res.err == nil {
			j.final(res.st)
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if failed == nil {
			failed = res.err
			cancel()
			j.rt.Warn(fmt.Sprintf("narrowing citations to sentences failed (%v); statements whose narrowing did not finish cite whole snippets", res.err))
		}
		st := it.coarse
		st.Warnings = append(slices.Clone(st.Warnings), "chunk-level citations: the sentence-level step did not run")
		j.final(st)
	}
	return failed
}

// extract asks for the sentences of a statement's cited chunks (with
// their neighbours) that support it.
func (j *job) extract(ctx context.Context, it item) result {
	local, err := citations.NewLocalNumbering(0, j.windows(it.chunks)...)
	if err != nil {
		return result{err: err}
	}
	reply, err := j.rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{Messages: sentenceMessages(it.raw.Text, local), MaxTokens: fineMaxTokens})
	if err != nil {
		return result{err: err}
	}
	refs, garbled := ParseSpans(reply.Text)
	if len(refs) == 0 && !strings.Contains(strings.ToLower(reply.Text), strings.ToLower(NoRelevant)) {
		// Neither spans nor "No relevant information": a reply that is
		// not an answer to Figure 13 leaves the statement its snippets.
		st := it.coarse
		st.Warnings = append(slices.Clone(st.Warnings), "chunk-level citations: the model's sentence-level reply was not spans or \""+NoRelevant+"\"")
		return result{st: st}
	}
	st := local.Statement(citations.RawStatement{Text: it.raw.Text, Refs: refs, Garbled: garbled},
		citations.ResolveOptions{MaxCitations: j.keep})
	// Keep what step 2's resolution said (chunk numbers dropped), then
	// step 3's.
	st.Warnings = append(slices.Clone(it.coarse.Warnings), st.Warnings...)
	return result{st: st}
}

// windows expands each cited chunk by the chunks before and after it and
// merges windows that overlap or touch, giving the passage's parts: runs
// of whole sentences, in document order.
func (j *job) windows(chunks []pick) []citations.Part {
	cs := slices.Clone(chunks)
	slices.SortFunc(cs, byPlace)
	type window struct{ doc, lo, hi int }
	var ws []window
	for _, c := range cs {
		n := len(j.rt.Docs()[c.Doc].Chunks)
		w := window{c.Doc, max(0, c.Chunk-1), min(n-1, c.Chunk+1)}
		if k := len(ws) - 1; k >= 0 && ws[k].doc == w.doc && w.lo <= ws[k].hi+1 {
			ws[k].hi = max(ws[k].hi, w.hi)
			continue
		}
		ws = append(ws, w)
	}
	parts := make([]citations.Part, len(ws))
	for i, w := range ws {
		d := j.rt.Docs()[w.doc]
		first, last := int(d.Chunks[w.lo].First), int(d.Chunks[w.hi].Last)
		idx := make([]int, 0, last-first+1)
		for s := first; s <= last; s++ {
			idx = append(idx, s)
		}
		parts[i] = citations.Part{Doc: d, Sentences: idx}
	}
	return parts
}
