// Package eval answers a data set's questions with a strategy and scores
// the answers: against the gold answers and evidence offline (citations'
// metrics: evidence recall, citation precision and length, answer F1, EM
// and hit), and, when asked, with a model as the judge as LongBench-Cite
// does (judged citation recall, precision and F1; correctness, LongCite
// Figures 4-6). `citelens eval` is a thin front end to Run.
//
// A data set is a folder: DIR/docs/ holds the documents (DocFiles lists
// them), DIR/questions.jsonl one question a line, a citations.Gold: its
// id, question, gold answers, the documents it is asked of and the gold
// evidence as byte spans (ReadQuestions).
//
//	golds, err := eval.ReadQuestions(filepath.Join(dir, "questions.jsonl"))
//	sum, err := eval.Run(ctx, env, golds, eval.Config{Strategy: s, Judging: eval.Judging{Correctness: true}})
//	sum.Print(os.Stderr)              // the lines for people
//	json.NewEncoder(os.Stdout).Encode(sum) // the figures for scripts
//
// A strategy that must prepare documents before it answers (RAIDD's
// derivation, engine.Preparer) is prepared first, and what that cost is
// reported apart from the answers' own cost (Summary's derive).
//
// # Correctness ratio
//
// LongCite reports each model's correctness ratio CR = C / C_LQA: the
// judged correctness of its cited answers against that of the same model
// answering the same questions from the whole context without citations
// (LQA; the plain strategy). Config.LQA gives eval the plain run: the
// records (Config.Records, `eval --out`) of an earlier `eval --strategy
// plain --judge correctness` over the same data set, or RunPlain, when
// eval answers each question with the plain strategy too and judges both
// (the plain answers' cost is reported apart). CR is taken over the
// questions judged in both runs; it turns judging correctness on.
//
// # Caveats
//
// The judge is a model: its figures vary with it, and a judge that fails
// on one answer leaves that question unjudged (said through
// Config.Notice), never the evaluation stopped. Only cancellation stops
// an evaluation early.
package eval
