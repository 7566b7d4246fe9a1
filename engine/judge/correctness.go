package judge

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/citelens/citelens/citations"
	"github.com/citelens/citelens/llm"
)

// Correctness is LongBench-Cite's correctness (LongCite paper, section
// 2.3.1, Figures 4-6), as THUDM/LongCite's LongBench-Cite/eval_correct.py
// computes it: the answer's text without its citations is rated by the
// judge against each gold answer, and the best rating counts —
//
//   - question answering (HotpotQA, MultiFieldQA, DuReader; Figure 5): a
//     rating of 1 to 3, scored (r-1)/2;
//   - summaries (GovReport; Figure 6): 1 to 5, scored (r-1)/4;
//   - chat (LongBench-Chat; Figure 4): 1 to 10 after three example
//     answers and their ratings, scored r/10.
//
// The rating is the first number in the last "[[…]]" of the reply; a
// reply without one is asked again, at temperature 0, up to five times
// (twice for chat), and a question still unrated scores 0.5, as the
// reference does. The reference shuffles the chat examples; here they
// keep the data set's order, so runs repeat.
type Correctness struct {
	// Score is the best over the gold answers, 0 to 1.
	Score float64
	// Ratings are the judge's ratings, one per gold answer ("" for one it
	// never gave).
	Ratings []string
	// Unrated counts the gold answers the judge gave no rating for.
	Unrated int
	Usage   llm.Usage
}

// correctnessSystem is the reference's system prompt.
const correctnessSystem = "You're a good assistant at evaluating the quality of texts."

// Figure 5, as eval_correct.py's gpt_score_qa sends it.
const qaPrompt = "You are asked to evaluate the quality of the AI assistant's answer to user questions as an impartial judge, and your evaluation should take into account factors including correctness (high priority), and comprehensiveness (whether the assistant's answer covers all points).\nRead the AI assistant's answer and compare against the reference answer, and give an overall integer rating in 1, 2, 3 (1 = wrong or irrelevant, 2 = partially correct, 3 = correct and comprehensive) based on the above principles, strictly in the following format:\"[[rating]]\", e.g. \"[[2]]\".\n\n[Question]\n$Q$\n[Reference answer]\n$A$\n[Assistant's answer]\n$P$\nRating:"

// Figure 6, as gpt_score_summ sends it (without the question, as there).
const summaryPrompt = "You are asked to evaluate the quality of the AI assistant's generated summary as an impartial judge, and your evaluation should take into account factors including correctness (high priority), comprehensiveness (whether the assistant's summary covers all points), and coherence.\nRead the AI assistant's summary and compare against the reference summary, and give an overall integer rating in on a scale of 1 to 5, where 1 is the lowest and 5 is the highest based on the evaluation criteria, strictly in the following format:\"[[rating]]\", e.g. \"[[3]]\".\n\n[Reference summary]\n$A$\n[Assistant's summary]\n$P$\nRating:"

// Figure 4, as gpt_score_fewshot sends it: the question, the reference,
// three rated examples, then the answer.
const chatPrompt = "[Instruction]\nYou are asked to evaluate the quality of the AI assistant's answers to user questions as an impartial judge, and your evaluation should take into account factors including correctness (high priority), helpfulness, accuracy, and relevance. The scoring principles are as follows:\n1. Read the AI assistant's answer and compare the assistant's answer with the reference answer.\n2. Identify all errors in the AI Assistant's answers and consider how much they affect the answer to the question.\n3. Evaluate how helpful the AI assistant's answers are in directly answering the user's questions and providing the information the user needs. \n4. Examine any additional information in the AI assistant's answer to ensure that it is correct and closely related to the question. If this information is incorrect or not relevant to the question, points should be deducted from the overall score.\n\nPlease give an overall integer rating from 1 to 10 based on the above principles, strictly in the following format:\"[[rating]]\", e.g. \"[[5]]\".\n\n[Question]\n$Q$\n\n[Reference answer begins]\n$A$\n[Reference answer ends]\n\nBelow are several assistants' answers and their ratings:\n\n$E$Please rate the following assistant answers based on the scoring principles and examples above:\n\n[Assistant's answer begins]\n$P$\n[Assistant's answer ends]\n\nRating: "

// correctnessTask is how one kind of question is rated.
type correctnessTask struct {
	prompt      func(question, gold, prediction string, fewShot []citations.RatedAnswer) string
	score       func(rating int) float64
	tries       int
	stop        []string
	lowest, top int
}

var correctnessTasks = map[string]correctnessTask{
	"qa": {
		prompt: func(q, a, p string, _ []citations.RatedAnswer) string {
			return fill(qaPrompt, "$Q$", q, "$A$", a, "$P$", p)
		},
		score: func(r int) float64 { return float64(r-1) / 2 },
		tries: 5, lowest: 1, top: 3,
	},
	"summary": {
		prompt: func(_, a, p string, _ []citations.RatedAnswer) string {
			return fill(summaryPrompt, "$A$", a, "$P$", p)
		},
		score: func(r int) float64 { return float64(r-1) / 4 },
		tries: 5, lowest: 1, top: 5,
	},
	"chat": {
		prompt: func(q, a, p string, few []citations.RatedAnswer) string {
			var ex strings.Builder
			for _, f := range few {
				fmt.Fprintf(&ex, "[Assistant's answer begins]\n%s\n[Assistant's answer ends]\n\nRating: [[%d]]\n\n", f.Answer, f.Score)
			}
			p = strings.TrimSpace(strings.ReplaceAll(p, "\n", " "))
			return fill(chatPrompt, "$Q$", q, "$A$", a, "$E$", ex.String(), "$P$", p)
		},
		score: func(r int) float64 { return float64(r) / 10 },
		tries: 2, stop: []string{"\n\n"}, lowest: 1, top: 10,
	},
}

// CorrectnessTasks are the tasks Correctness rates.
var CorrectnessTasks = []string{"qa", "summary", "chat"}

// fill replaces each placeholder by its value, once, in order, so a value
// holding a later placeholder's name is left alone.
func fill(template string, pairs ...string) string {
	var b strings.Builder
	rest := template
	for i := 0; i+1 < len(pairs); i += 2 {
		before, after, ok := strings.Cut(rest, pairs[i])
		if !ok {
			continue
		}
		b.WriteString(before)
		b.WriteString(pairs[i+1])
		rest = after
	}
	b.WriteString(rest)
	return b.String()
}

// correctnessMaxTokens bounds a correctness rating: the reference sets no
// bound, and a judge that explains itself before "[[2]]" needs room.
const correctnessMaxTokens = 512

// Correctness rates prediction (the answer's text without citations)
// against golds for question; task is "qa" ("" too), "summary" or
// "chat" (with fewShot examples). Only cancellation or a failing endpoint
// is an error.
func (j *Judge) Correctness(ctx context.Context, question, prediction string, golds []string, task string, fewShot []citations.RatedAnswer) (Correctness, error) {
	if task == "" {
		task = "qa"
	}
	t, ok := correctnessTasks[task]
	if !ok {
		return Correctness{}, fmt.Errorf("task %q: the correctness judge rates %s", task, strings.Join(CorrectnessTasks, ", "))
	}
	if task == "chat" && len(fewShot) == 0 {
		return Correctness{}, fmt.Errorf("task \"chat\" needs few_shot_scores: rated example answers")
	}
	var c Correctness
	for _, gold := range golds {
		prompt := t.prompt(strings.TrimSpace(question), gold, prediction, fewShot)
		rating, usage, err := j.rate(ctx, prompt, t)
		c.Usage.Add(usage)
		if err != nil {
			return c, err
		}
		c.Ratings = append(c.Ratings, rating)
		score := 0.5 // the reference's score for an answer never rated
		if rating == "" {
			c.Unrated++
		} else {
			n, _ := strconv.Atoi(rating)
			score = t.score(n)
		}
		c.Score = max(c.Score, score)
	}
	return c, nil
}

// rate asks one correctness rating until the reply holds a whole number
// in the task's range; "" when it never does.
func (j *Judge) rate(ctx context.Context, prompt string, t correctnessTask) (string, llm.Usage, error) {
	var total llm.Usage
	zero := 0.0
	for range t.tries {
		reply, err := j.client.Chat(ctx, llm.ChatRequest{
			Messages: []llm.Message{llm.System(correctnessSystem), llm.User(prompt)},
			Model:    j.opt.Model, MaxTokens: correctnessMaxTokens, Temperature: &zero, Stop: t.stop,
		})
		total.Add(reply.Usage)
		if err != nil {
			return "", total, err
		}
		text, _, _ := llm.SplitReasoning(reply.Text)
		if n, ok := correctnessRating(text); ok && n >= t.lowest && n <= t.top {
			return strconv.Itoa(n), total, nil
		}
	}
	return "", total, nil
}

var (
	bracketsRE = regexp.MustCompile(`\[\[([^\]]+)\]\]`)
	numberRE   = regexp.MustCompile(`\d+\.\d+|\d+`)
)

// correctnessRating reads the reference's way: the last "[[…]]", the
// first number in it, which must be whole (int() of "2.5" fails there,
// and the judge is asked again).
func correctnessRating(reply string) (int, bool) {
	all := bracketsRE.FindAllStringSubmatch(reply, -1)
	if len(all) == 0 {
		return 0, false
	}
	num := numberRE.FindString(all[len(all)-1][1])
	n, err := strconv.Atoi(num)
	return n, err == nil
}

// CorrectnessFigures are one answer's judged correctness as `citelens
// eval --judge correctness` reports it, beside the other figures.
type CorrectnessFigures struct {
	Correctness           float64  `json:"correctness_judged"`
	Ratings               []string `json:"correctness_ratings"`
	Unrated               int      `json:"correctness_unrated,omitempty"`
	JudgePromptTokens     int      `json:"correctness_judge_prompt_tokens"`
	JudgeCompletionTokens int      `json:"correctness_judge_completion_tokens"`
	JudgeCalls            int      `json:"correctness_judge_llm_calls"`
}

// Figures returns the correctness' figures.
func (c Correctness) Figures() CorrectnessFigures {
	return CorrectnessFigures{Correctness: c.Score, Ratings: c.Ratings, Unrated: c.Unrated,
		JudgePromptTokens: c.Usage.PromptTokens, JudgeCompletionTokens: c.Usage.CompletionTokens, JudgeCalls: c.Usage.LLMCalls}
}

// CorrectnessReport is the judged correctness over many answers: the mean
// of their scores (eval_correct.py's gpt_score, here 0 to 1 where the
// paper prints it ×100).
type CorrectnessReport struct {
	Judged                int     `json:"correctness_judged_questions"`
	Correctness           float64 `json:"correctness_judged"`
	Unrated               int     `json:"correctness_unrated"`
	JudgePromptTokens     int     `json:"correctness_judge_prompt_tokens"`
	JudgeCompletionTokens int     `json:"correctness_judge_completion_tokens"`
	JudgeCalls            int     `json:"correctness_judge_llm_calls"`
}

// SummarizeCorrectness averages per-answer correctness and sums the
// judge's usage.
func SummarizeCorrectness(all []CorrectnessFigures) CorrectnessReport {
	r := CorrectnessReport{Judged: len(all)}
	for _, f := range all {
		r.Correctness += f.Correctness
		r.Unrated += f.Unrated
		r.JudgePromptTokens += f.JudgePromptTokens
		r.JudgeCompletionTokens += f.JudgeCompletionTokens
		r.JudgeCalls += f.JudgeCalls
	}
	if len(all) > 0 {
		r.Correctness /= float64(len(all))
	}
	return r
}
