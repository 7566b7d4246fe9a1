package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/docstore"
)

// Run answers req with s and does the bookkeeping every answer needs, so
// strategies need not: the answer's ID, question, strategy name, scope,
// creation time and wall time, the stages and usage gathered from the
// events, and a partial answer (with the statements emitted so far) when
// the strategy fails or is cancelled. emit may be nil.
func Run(ctx context.Context, env *Env, s Strategy, req Request, emit func(Event)) (*Answer, error) {
	start := time.Now()
	if len(req.Docs) == 0 {
		infos, err := env.Library.List()
		if err != nil {
			return nil, err
		}
		for _, d := range infos {
			req.Docs = append(req.Docs, d.ID)
		}
	}
	if len(req.Docs) == 0 {
		return nil, ErrEmptyScope
	}
	var (
		stages     []string
		statements []citations.Statement
		usage      citations.Usage
		plan       any
	)
	ans, err := s.Answer(ctx, req, func(ev Event) {
		switch {
		case ev.Stage != "":
			stages = append(stages, ev.Stage)
		case ev.Statement != nil:
			statements = append(statements, *ev.Statement)
		case ev.Usage != nil:
			usage.Add(*ev.Usage)
		case ev.Plan != nil:
			plan = ev.Plan
		}
		if emit != nil {
			emit(ev)
		}
	})
	if ans == nil {
		switch {
		case err == nil:
			return nil, fmt.Errorf("strategy %s returned no answer", s.Name())
		case len(statements) == 0 && len(stages) == 0:
			// Failed before doing anything (a bad option, say): there is
			// nothing worth keeping as a partial answer.
			return nil, err
		}
		ans = &Answer{Statements: statements}
	}
	if err != nil {
		ans.Partial = true
		ans.Error = err.Error()
		if errors.Is(err, context.Canceled) {
			ans.Error = "cancelled"
		}
	}
	ans.ID = docstore.NewAnswerID()
	ans.Question = req.Question
	ans.Strategy = s.Name()
	ans.Created = start.UTC()
	ans.Seconds = time.Since(start).Seconds()
	if ans.Stages == nil {
		ans.Stages = stages
	}
	if ans.Stages == nil {
		ans.Stages = []string{}
	}
	if ans.Usage == (citations.Usage{}) {
		ans.Usage = usage
	}
	if ans.Plan == nil {
		ans.Plan = plan
	}
	if ans.Statements == nil {
		ans.Statements = []citations.Statement{}
	}
	ans.Docs = ans.Docs[:0]
	for _, id := range req.Docs {
		ref := citations.DocRef{ID: id}
		if info, e := env.Library.Info(id); e == nil {
			ref.Name = info.Name
		}
		ans.Docs = append(ans.Docs, ref)
	}
	return ans, err
}

// ErrEmptyScope means there are no documents to answer from.
var ErrEmptyScope = errors.New("there are no documents to answer from: add some with 'citelens add FILE'")

// Save stores an answer in the library so it can be listed and exported.
// An answer that failed before it stated anything (a rejected key, a dead
// endpoint: partial, with no statement) is not saved: there is nothing in
// it to read or export, and the history would fill with failures.
func Save(lib *docstore.Library, ans *Answer) error {
	if ans.Partial && len(ans.Statements) == 0 {
		return nil
	}
	rec, err := json.Marshal(ans)
	if err != nil {
		return err
	}
	return lib.SaveAnswer(ans.ID, rec)
}

// Load reads a saved answer by ID or unique ID prefix.
func Load(lib *docstore.Library, ref string) (*Answer, error) {
	_, rec, err := lib.Answer(ref)
	if err != nil {
		return nil, err
	}
	var ans Answer
	if err := json.Unmarshal(rec, &ans); err != nil {
		return nil, fmt.Errorf("saved answer %s: %w", ref, docstore.ErrCorrupt)
	}
	return &ans, nil
}
