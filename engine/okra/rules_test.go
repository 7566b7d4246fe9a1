package okra

import (
	"strings"
	"testing"
)

func TestRuleQuestionType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ q, want string }{
		// arithmetic
		{"How many acres larger is the West Florida campus?", Arithmetic},
		{"How much did revenue grow between 2019 and 2020?", Arithmetic},
		{"What is the difference between the 2019 and 2020 surplus?", Arithmetic},
		{"What was the total surplus over the four years?", Arithmetic},
		{"What was the change in costs from 2018 to 2021?", Arithmetic},
		{"What percentage of revenue went to costs?", Arithmetic},
		// multi-source
		{"Were Scott Derrickson and Ed Wood of the same nationality?", MultiSource},
		{"Which university has the larger campus, University of New Haven or University of West Florida?", MultiSource},
		{"Who was born first, Raquel Welch or Tom Gries?", MultiSource},
		{"Which is older the Lost Valley or Hondo?", MultiSource},
		{"Are Local H and For Against both from the United States?", MultiSource},
		{"Is Cypress a genus of plants and Ajuga a genus of flowers?", MultiSource},
		{"Did Raquel Welch and Tom Gries work together?", MultiSource},
		// multi-bridge
		{"What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?", MultiBridge},
		{"The Lost Valley is a western film, starring an actress of what nationality?", MultiBridge},
		{"In what year was the director of The Lost Valley born?", MultiBridge},
		{"What is the name of the band that released the album Hot Fuss?", MultiBridge},
		{"Where was the film directed by Tom Gries shot?", MultiBridge},
		{"This singer of A Rather Blustery Day also voiced what hedgehog?", MultiBridge},
		{"The team represented Virginia Commonwealth University which was founded in what year?", MultiBridge},
		{"A manga series about a student is written and illustrated by someone born in what year?", MultiBridge},
		{"Which University was founded first?", Extractive},
		// abstractive
		{"Why did the harbour silt up?", Abstractive},
		{"How did the breakwater change the current?", Abstractive},
		{"Explain the dredging policy of the town.", Abstractive},
		{"Summarize the history of the harbour.", Abstractive},
		{"What are the main causes of the silting?", Abstractive},
		{"What was the impact of the 1952 flood on the harbour?", Abstractive},
		// extractive
		{"Where was Raquel Welch born?", Extractive},
		{"When was the breakwater built?", Extractive},
		{"How long is the breakwater?", Extractive},
		{"What is the capital city of Ghana?", Extractive},
		{"Which station recorded the most rain?", Extractive},
	} {
		got, why := ruleQuestionType(c.q)
		if got != c.want {
			t.Errorf("%q: %s (%s), want %s", c.q, got, why, c.want)
		}
		if !strings.HasPrefix(why, got+":") {
			t.Errorf("%q: the reason %q does not name the type", c.q, why)
		}
	}
}

func TestRuleInfoType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ q, want string }{
		{`What does the error "connection refused" mean?`, Exact},
		{"Were Scott Derrickson and Ed Wood of the same nationality?", Exact},
		{"What does lm.fit return?", Exact},
		{"When did the NASA budget peak in 1966?", Exact},
		{"What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?", Same},
		{"Why did the harbour silt up?", Semantic},
		{"What makes a garden attract more birds?", Semantic},
		{"?", Semantic},
	} {
		got, why := ruleInfoType(c.q)
		if got != c.want {
			t.Errorf("%q: %s (%s), want %s", c.q, got, why, c.want)
		}
	}
}

func TestExactCue(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]bool{
		"Derrickson": true, "NASA": true, "lm.fit": true, "x86": true, "1966": true, "snake_case": true,
		"McDonald": true, "iPhone": true, "nationality": false, "the": false, "I": false,
	} {
		if got := exactCue(w, false); got != want {
			t.Errorf("exactCue(%q) = %v", w, got)
		}
	}
	if exactCue("Where", true) || exactCue("Raquel", true) {
		t.Error("the question's first word is capitalised for grammar, not as a name")
	}
}

func TestRuleEvidence(t *testing.T) {
	t.Parallel()
	q := "Where was Raquel Welch born?"
	if ok, why := ruleEvidence(q, nil, nil); ok || !strings.Contains(why, "nothing was retrieved") {
		t.Errorf("no context: %v %s", ok, why)
	}
	ctx := []string{"Raquel Welch was an American actress born in Chicago in 1940."}
	if ok, why := ruleEvidence(q, ctx, nil); !ok {
		t.Errorf("all terms present: %v %s", ok, why)
	}
	// "born" is common, the names rare: a context with the names but not
	// "born" still holds most of the weight.
	idf := map[string]float64{"raquel": 6, "welch": 6, "born": 0.5}
	if ok, why := ruleEvidence(q, []string{"Raquel Welch starred in The Lost Valley."}, idf); !ok {
		t.Errorf("rare terms present: %v %s", ok, why)
	}
	if ok, why := ruleEvidence(q, []string{"She was born in Chicago."}, idf); ok || !strings.Contains(why, "under 75%") {
		t.Errorf("only the common term present: %v %s", ok, why)
	}
	if ok, _ := ruleEvidence("the of and", ctx, nil); ok {
		t.Error("a question of stop words has no evidence")
	}
}

func TestAnalyzeRules(t *testing.T) {
	t.Parallel()
	a := analyzeRules("Were Scott Derrickson and Ed Wood of the same nationality?",
		[]string{"Scott Derrickson is an American director.", "Ed Wood was an American filmmaker."}, nil)
	if a.QuestionType != MultiSource || a.InformationType != Exact || !a.EvidenceContained || a.Source != SourceRules || len(a.Reasons) != 3 {
		t.Errorf("%+v", a)
	}
}

func TestParseAnalysis(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		reply string
		want  Analysis
	}{
		{`{"question-type": "extractive", "info-type": "exact", "containing": "yes"}`, Analysis{QuestionType: Extractive, InformationType: Exact, EvidenceContained: true}},
		{`{'question-type': 'multi-source', 'info-type': 'semantic', 'containing': 'no'}`, Analysis{QuestionType: MultiSource, InformationType: Semantic}},
		{"Sure! Here it is:\n```json\n{\"Question Type\": \"Multi-Bridge\", \"info_type\": \"both\", \"containing\": true}\n```", Analysis{QuestionType: MultiBridge, InformationType: Same, EvidenceContained: true}},
		{`{"question-type": "arithemtic", "information-type": "same", "containing": "No"}.`, Analysis{QuestionType: Arithmetic, InformationType: Same}},
		{`{'question-type': 'abstractive', 'info-type': 'exact', 'containing': True}`, Analysis{QuestionType: Abstractive, InformationType: Exact, EvidenceContained: true}},
	} {
		got, err := parseAnalysis(c.reply)
		c.want.Source = SourceModel
		if err != nil || got.QuestionType != c.want.QuestionType || got.InformationType != c.want.InformationType ||
			got.EvidenceContained != c.want.EvidenceContained || got.Source != SourceModel {
			t.Errorf("%q: %+v %v", c.reply, got, err)
		}
	}
	for reply, why := range map[string]string{
		"":                       "no dictionary",
		"extractive, exact, yes": "no dictionary",
		`{"question-type": }`:    "not a dictionary",
		`{"info-type": "exact", "containing": "yes"}`:                            `no "question-type"`,
		`{"question-type": "lookup", "info-type": "exact", "containing": "yes"}`: `"question-type" is "lookup"`,
		`{"question-type": "extractive", "containing": "yes"}`:                   `no "info-type"`,
		`{"question-type": "extractive", "info-type": "fuzzy", "containing": 1}`: `"info-type" is "fuzzy"`,
		`{"question-type": "extractive", "info-type": "exact"}`:                  `no "containing"`,
		`{"question-type": "extractive", "info-type": "exact", "containing": 1}`: `"containing" is "1"`,
	} {
		if _, err := parseAnalysis(reply); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: err %v, want %q", reply, err, why)
		}
	}
}

func FuzzParseAnalysis(f *testing.F) {
	for _, s := range []string{
		`{"question-type": "extractive", "info-type": "exact", "containing": "yes"}`,
		`{'question-type': 'multi-source', 'info-type': 'semantic', 'containing': False}`,
		`{"a": "{\"b\"}", 'c': "it's"}`, `{{{`, `}{`, `{'x`, `{"x": "\`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseAnalysis(s)
		if err == nil && (normQuestionType(a.QuestionType) == "" || normInfoType(a.InformationType) == "" || a.Source != SourceModel) {
			t.Errorf("%q gave %+v", s, a)
		}
	})
}
