package raidd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/retrieve"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
)

// SetFor is the derived-document set that model writes with this
// package's chunking and the authors' two calls per chunk.
func SetFor(model string) docstore.DerivedSet { return SetWith(model, TwoCalls) }

// SetWith is the derived-document set that model writes in layout l.
func SetWith(model string, l Layout) docstore.DerivedSet {
	return docstore.DerivedSet{Model: model, Tokens: ChunkTokens, Overlap: ChunkOverlap, Version: int(l)}
}

// Chunks cuts d into the chunks derived documents are written for:
// windows of whole sentences of about 256 tokens overlapping by 50
// (retrieve.CutWindows), with their estimated tokens.
func Chunks(d *docstore.Document) ([]docstore.Chunk, error) {
	rs, err := retrieve.CutWindows(d, retrieve.Windowing{Tokens: ChunkTokens, Overlap: ChunkOverlap})
	if err != nil {
		return nil, err
	}
	out := make([]docstore.Chunk, len(rs))
	for i, r := range rs {
		out[i] = docstore.Chunk{First: int32(r.First), Last: int32(r.Last), Tokens: int32(textproc.EstimateTokens(d.Text[r.Start:r.End]))}
	}
	return out, nil
}

// DocNeed is one document's derivation: how many chunks it has and how
// many are derived already.
type DocNeed struct {
	ID     docstore.DocID
	Name   string
	Chunks int
	Done   int
	// Failed counts chunks whose reply was unusable; derivation retries
	// them.
	Failed int
}

// Estimate is what deriving the missing documents of a scope would cost,
// estimated from the chunks' sizes before any call.
type Estimate struct {
	Set  docstore.DerivedSet
	Docs []DocNeed // only documents with something left to derive
	// Chunks to derive, and the calls, prompt and completion tokens that
	// takes (one or two calls per chunk, as the set's layout says; a
	// retry is not counted).
	Chunks, Calls                  int
	PromptTokens, CompletionTokens int
}

// Tokens is the estimate's total tokens.
func (e Estimate) Tokens() int { return e.PromptTokens + e.CompletionTokens }

// Missing estimates what deriving set for docs still needs. A document whose
// chunks are all derived (failed ones aside) needs nothing.
func Missing(lib *docstore.Library, set docstore.DerivedSet, docs []docstore.DocID) (Estimate, error) {
	est := Estimate{Set: set}
	for _, id := range docs {
		d, err := lib.Document(id)
		if err != nil {
			return est, err
		}
		chunks, err := Chunks(d)
		if err != nil {
			return est, err
		}
		st, err := lib.Derived().Status(id, set)
		if err != nil {
			return est, err
		}
		have := map[int]bool{}
		if st.Chunks == len(chunks) && st.Done > 0 {
			recs, err := lib.Derived().Chunks(id, set)
			if err != nil {
				return est, err
			}
			for _, r := range recs {
				if r.Failed == "" {
					have[r.Index] = true
				}
			}
		}
		need := DocNeed{ID: id, Name: d.Name, Chunks: len(chunks), Done: len(have)}
		if st.Chunks == len(chunks) {
			need.Failed = st.Failed
		}
		if st.Chunks == len(chunks) && st.Done == len(chunks) {
			continue // complete; failed chunks do not block answering
		}
		for i, c := range chunks {
			if have[i] {
				continue
			}
			prev := 0
			if i > 0 {
				prev = int(chunks[i-1].Tokens)
			}
			p, c := estimateChunk(layoutOf(set), int(c.Tokens), prev)
			est.PromptTokens += p
			est.CompletionTokens += c
			est.Chunks++
			est.Calls += layoutOf(set).calls()
		}
		est.Docs = append(est.Docs, need)
	}
	return est, nil
}

// Progress reports a derivation as it goes.
type Progress struct {
	// Doc is the document the last chunk belonged to.
	Doc  docstore.DocID
	Name string
	// Done and Total count chunks over the whole run: derived so far in
	// this run, and to derive in it (chunks found stored are in neither).
	Done, Total int
	// Failed counts chunks stored as failed in this run.
	Failed int
	// Usage is the model work spent so far in this run.
	Usage llm.Usage
	// Elapsed is the time since the run began.
	Elapsed time.Duration
}

// Failure is a chunk whose reply stayed unusable after a retry.
type Failure struct {
	Doc    docstore.DocID
	Name   string
	Chunk  int
	Page   int // page of the chunk's first sentence
	Reason string
}

// Report is what a derivation did.
type Report struct {
	Set docstore.DerivedSet
	// Docs are the documents of the run with their state at its end.
	Docs []DocNeed
	// Derived counts chunks derived in this run, Resumed those found
	// already stored.
	Derived, Resumed int
	Failures         []Failure
	Usage            llm.Usage
	Seconds          float64
}

// Deriver writes derived documents: for each chunk, its summary
// (conditioned on the previous chunk's summary) and its questions, in two
// model calls or, in layout OneCall, one.
type Deriver struct {
	Library *docstore.Library
	Client  *llm.Client
	// Model writes the documents; "" means the client's model.
	Model string
	// Layout is how a chunk is asked for; 0 means TwoCalls, the authors'.
	Layout Layout
	// Jobs is how many documents are derived at once (default 1). The
	// chunks of one document are derived in order, since each summary is
	// conditioned on the one before.
	Jobs int
	// Records are committed every Batch chunks (default 8) or BatchTime
	// (default 2 s), whichever comes first, and when the run stops: a
	// crash loses at most a batch, a cancellation only the call in flight.
	Batch     int
	BatchTime time.Duration
}

// Set is the set the deriver writes.
func (dv *Deriver) Set() docstore.DerivedSet {
	m := dv.Model
	if m == "" {
		m = dv.Client.Config().Model
	}
	l := dv.Layout
	if l == 0 {
		l = TwoCalls
	}
	return SetWith(m, l)
}

// Derive writes the missing derived documents of docs, resuming where an
// earlier run stopped, retrying chunks that failed before, and indexes
// each document once all its chunks have their records. progress (which
// may be nil) is called after each chunk, from one goroutine at a time.
//
// On an error from the model endpoint or a cancellation, what was derived
// is committed and the error returned with the report so far; a later run
// resumes from there.
func (dv *Deriver) Derive(ctx context.Context, docs []docstore.DocID, progress func(Progress)) (Report, error) {
	start := time.Now()
	set := dv.Set()
	rep := Report{Set: set}
	type job struct {
		doc    *docstore.Document
		chunks []docstore.Chunk
		have   map[int]docstore.DerivedChunk
		todo   int
	}
	var jobs []*job
	total := 0
	for _, id := range docs {
		d, err := dv.Library.Document(id)
		if err != nil {
			return rep, err
		}
		chunks, err := Chunks(d)
		if err != nil {
			return rep, err
		}
		if _, err := dv.Library.Derived().Begin(id, set, chunks); err != nil {
			return rep, err
		}
		recs, err := dv.Library.Derived().Chunks(id, set)
		if err != nil {
			return rep, err
		}
		j := &job{doc: d, chunks: chunks, have: map[int]docstore.DerivedChunk{}}
		for _, r := range recs {
			j.have[r.Index] = r
			if r.Failed == "" {
				rep.Resumed++
			}
		}
		for i := range chunks {
			if r, ok := j.have[i]; !ok || r.Failed != "" {
				j.todo++
			}
		}
		total += j.todo
		jobs = append(jobs, j)
	}

	var mu sync.Mutex // guards rep and the progress calls
	done, failed := 0, 0
	report := func(d *docstore.Document, rec docstore.DerivedChunk, u llm.Usage) {
		mu.Lock()
		defer mu.Unlock()
		done++
		rep.Derived++
		rep.Usage.Add(u)
		if rec.Failed != "" {
			failed++
			rep.Failures = append(rep.Failures, Failure{Doc: d.ID, Name: d.Name, Chunk: rec.Index,
				Page: int(d.Sentences[rec.First].Page), Reason: rec.Failed})
		}
		if progress != nil {
			progress(Progress{Doc: d.ID, Name: d.Name, Done: done, Total: total, Failed: failed, Usage: rep.Usage, Elapsed: time.Since(start)})
		}
	}
	run := func(j *job) error {
		return dv.deriveDoc(ctx, set, j.doc, j.chunks, j.have, report)
	}
	var firstErr error
	jobsN := max(dv.Jobs, 1)
	if jobsN == 1 || len(jobs) == 1 {
		for _, j := range jobs {
			if firstErr = run(j); firstErr != nil {
				break
			}
		}
	} else {
		ctx2, cancel := context.WithCancel(ctx)
		defer cancel()
		sem := make(chan struct{}, jobsN)
		var wg sync.WaitGroup
		var errMu sync.Mutex
		for _, j := range jobs {
			sem <- struct{}{}
			if ctx2.Err() != nil {
				<-sem
				break
			}
			wg.Go(func() {
				defer func() { <-sem }()
				if err := dv.deriveDoc(ctx2, set, j.doc, j.chunks, j.have, report); err != nil {
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
						cancel()
					}
					errMu.Unlock()
				}
			})
		}
		wg.Wait()
		if firstErr == nil && ctx.Err() != nil {
			firstErr = ctx.Err()
		}
	}
	for _, j := range jobs {
		st, err := dv.Library.Derived().Status(j.doc.ID, set)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		rep.Docs = append(rep.Docs, DocNeed{ID: j.doc.ID, Name: j.doc.Name, Chunks: st.Chunks, Done: st.Done - st.Failed, Failed: st.Failed})
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, firstErr
}

// deriveDoc derives the missing chunks of one document in order, commits
// them in batches, and indexes the document when every chunk has its
// record.
func (dv *Deriver) deriveDoc(ctx context.Context, set docstore.DerivedSet, d *docstore.Document, chunks []docstore.Chunk,
	have map[int]docstore.DerivedChunk, report func(*docstore.Document, docstore.DerivedChunk, llm.Usage)) error {
	batch := dv.Batch
	if batch <= 0 {
		batch = 8
	}
	every := dv.BatchTime
	if every <= 0 {
		every = 2 * time.Second
	}
	var pending []docstore.DerivedChunk
	lastFlush := time.Now()
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := dv.Library.Derived().Put(d.ID, set, pending...)
		pending, lastFlush = pending[:0], time.Now()
		return err
	}
	prev := "" // the summary the next chunk is conditioned on
	for i, c := range chunks {
		if r, ok := have[i]; ok && r.Failed == "" {
			if r.Summary != "" {
				prev = r.Summary
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return errors.Join(err, flush())
		}
		rec, u, err := dv.deriveChunk(ctx, set, d, i, c, prev)
		if err != nil {
			return errors.Join(fmt.Errorf("deriving chunk %d of %s: %w", i+1, d.Name, err), flush())
		}
		pending = append(pending, rec)
		if rec.Summary != "" {
			prev = rec.Summary
		}
		report(d, rec, u)
		if len(pending) >= batch || time.Since(lastFlush) >= every {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	st, err := dv.Library.Derived().Status(d.ID, set)
	if err != nil {
		return err
	}
	if st.Complete() && !st.Indexed {
		return dv.Library.Derived().Index(d.ID, set)
	}
	return nil
}

// deriveChunk asks for chunk c's summary and questions, in the set's
// layout. A reply without what it was asked for, or cut at the output
// limit, is asked again once; if still unusable or cut, the chunk is
// recorded as failed with what was usable. err is an error of the
// endpoint (or the cancellation), and then nothing is recorded.
func (dv *Deriver) deriveChunk(ctx context.Context, set docstore.DerivedSet, d *docstore.Document, i int, c docstore.Chunk, prev string) (docstore.DerivedChunk, llm.Usage, error) {
	start, end := int(d.Sentences[c.First].Start), int(d.Sentences[c.Last].End)
	text := d.Text[start:end]
	n := QuestionCount(int(c.Tokens))
	rec := docstore.DerivedChunk{Index: i, First: int(c.First), Last: int(c.Last)}
	var total llm.Usage
	var got Parsed
	var err error
	if layoutOf(set) == OneCall {
		req := llm.ChatRequest{Messages: derivePrompt(text, prev, n), Model: set.Model, MaxTokens: replyTokens(int(c.Tokens), n)}
		got, err = dv.askTwice(ctx, req, &total, func(r string) Parsed { return ParseReply(r, n) }, Parsed.Usable)
	} else {
		req := llm.ChatRequest{Messages: summaryPrompt(text, prev), Model: set.Model, MaxTokens: replyTokens(int(c.Tokens), 0)}
		got, err = dv.askTwice(ctx, req, &total, func(r string) Parsed { return Parsed{Summary: ParseSummary(r)} },
			func(p Parsed) bool { return p.Summary != "" })
		if err == nil {
			req = llm.ChatRequest{Messages: questionsPrompt(text, n), Model: set.Model, MaxTokens: replyTokens(0, n)}
			var qs Parsed
			qs, err = dv.askTwice(ctx, req, &total, func(r string) Parsed { return Parsed{Questions: ParseQuestions(r, n)} },
				func(p Parsed) bool { return len(p.Questions) > 0 })
			got.Questions, got.cut = qs.Questions, got.cut || qs.cut
		}
	}
	if err != nil {
		return rec, total, err
	}
	rec.Summary, rec.Questions = got.Summary, got.Questions
	if !got.complete() {
		rec.Failed = got.problemOf()
	}
	rec.PromptTokens, rec.CompletionTokens, rec.Calls, rec.Estimated = total.PromptTokens, total.CompletionTokens, total.LLMCalls, total.Estimated
	return rec, total, nil
}

// askTwice sends req, and once more when the reply is not usable by
// usable or was cut at the output limit, and returns the better of the
// replies as parse reads them; each call's usage is added to total.
func (dv *Deriver) askTwice(ctx context.Context, req llm.ChatRequest, total *llm.Usage, parse func(string) Parsed, usable func(Parsed) bool) (Parsed, error) {
	var best Parsed
	for attempt := range 2 {
		reply, err := dv.Client.Chat(ctx, req)
		total.Add(reply.Usage)
		if err != nil {
			return best, err
		}
		p := parse(reply.Text)
		p.cut = reply.FinishReason == "length"
		if attempt == 0 || p.better(best) {
			best = p
		}
		if usable(best) && !best.cut {
			break
		}
	}
	return best, nil
}
