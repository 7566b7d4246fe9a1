package dag

import (
	"context"
	"fmt"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/llm"
)

// Algorithm 2, knowledge-constrained decoding (section 3.3, Figure 2(b)):
// the reasoning thought T starts as the question; each step
//
//  1. Plan: the model, shown the template's worked examples (Figure 4(b),
//     see decode_prompt.go) and T, drafts the next reasoning step s_i, or
//     "X is the answer." — the stop signal, which ends the steps;
//  2. Retrieve: the top chunks for the drafted step (3 sentence-aligned
//     chunks of about 80 words, Appendix C), concatenated in document
//     order: the knowledge c*_i. The draft is the query: it names what the
//     step is about, and a wrong claim in it only adds a few words;
//  3. Constrain: the model writes s_i again with c*_i before it, holding
//     to it — keeping what it supports, correcting what it contradicts,
//     saying so when it does not give it — and cites the sentences it
//     used, under their real numbers;
//  4. T ← T + s_i (the constrained step).
//
// At most max_steps steps run. The answer is then written from T as under
// Algorithm 1, showing only the sentences the steps cite, so every
// citation of the answer is a sentence of the knowledge a step was
// constrained to.

// decode is Algorithm 2's loop.
func (r *run) decode(ctx context.Context) error {
	for i := 1; i <= r.maxSteps; i++ {
		next, err := r.draftNext(ctx, false)
		if err == nil && next.unread() {
			r.rt.Stagef("step %d: the model's reply was not a step in the template: asking again with the format restated", i)
			next, err = r.draftNext(ctx, true)
		}
		if err != nil {
			return fmt.Errorf("planning step %d: %w", i, err)
		}
		if next.unread() {
			r.plan.Stopped = StopUnread
			return nil
		}
		query := next.Text
		if next.Final {
			if len(r.plan.Steps) > 0 || next.Text == "" {
				r.plan.Stopped, r.plan.Draft = StopModel, next.Text
				return nil
			}
			// The model answered at once, from what it knows; citelens
			// answers from the documents, so its answer is a step to hold
			// to them, looked up by the question.
			r.plan.Draft = next.Text
			next.Text = shorten(oneLine(next.Text)+" is the answer.", maxSubQuestion)
			query = shorten(oneLine(r.rt.Question()), maxSubQuestion)
		}
		r.rt.Stage(draftStage(i, r.maxSteps, next.Text))
		step, err := r.constrain(ctx, next.Text, query)
		r.plan.Steps = append(r.plan.Steps, step)
		if err != nil {
			return fmt.Errorf("constraining step %d to the documents: %w", i, err)
		}
		r.rt.Stage(factStage(i, &r.plan.Steps[len(r.plan.Steps)-1]))
	}
	r.plan.Stopped = StopLimit
	return nil
}

// draftNext asks the model for the next step as the template has it
// write one, or its stop signal; again, with the format restated, when
// restate. As for Algorithm 1, no stop sequence is sent (reasoning models
// refuse one); parseStep reads the first step.
func (r *run) draftNext(ctx context.Context, restate bool) (stepReply, error) {
	msgs := decodeMessages(r.rt.Question(), r.plan.Steps)
	if restate {
		msgs = append([]llm.Message{{Role: "system", Content: restateStep}}, msgs...)
	}
	reply, err := r.rt.Model().Chat(ctx, engine.Working, llm.ChatRequest{Messages: msgs})
	if err != nil {
		return stepReply{}, err
	}
	return parseStep(reply.Text), nil
}

// constrain retrieves the knowledge for the drafted step (by query) and
// has the model write the step again under its constraint, citing it.
func (r *run) constrain(ctx context.Context, draft, query string) (Step, error) {
	steps := r.plan.Steps
	return r.lookUp(ctx, Step{Draft: draft}, query, func(num *citations.Numbering) []llm.Message {
		return constrainMessages(r.rt.Question(), steps, draft, num)
	})
}
