package engine_test

import (
	"errors"
	"testing"

	"github.com/citelens/citelens/engine"
)

var table = engine.Options{
	{Name: "k", Aliases: []string{"top"}, Kind: engine.Int, Min: 1, Max: 20, Default: "5", Help: "chunks retrieved"},
	{Name: "cap", Kind: engine.Int, Min: 0, Help: "citations kept, 0 for no limit"},
	{Name: "stop", Kind: engine.Ratio, Default: "0.4", Help: "the share of the best kept"},
	{Name: "merge", Kind: engine.Bool, Default: "yes"},
	{Name: "level", Kind: engine.OneOf, Default: "sentence", Choices: []engine.Choice{
		{Value: "sentence", Help: "RAC-S", Also: []string{"s"}}, {Value: "chunk", Help: "RAC-C"}}},
	{Name: "model", Kind: engine.Text, Help: "the model whose work to use"},
	{Name: "level_of_detail", Refused: "not here"},
}

func TestOptionsParse(t *testing.T) {
	t.Parallel()
	v, err := table.Parse("rag", engine.Settings("top", " 7 ", "level", "S", "merge", "off", "stop", "0.25", "model", "m", "k", "8"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Int("k") != 8 || !v.Given("k") || v.String("level") != "sentence" || v.Bool("merge") || v.Ratio("stop") != 0.25 || v.String("model") != "m" {
		t.Errorf("values: k %d level %q merge %v stop %g model %q", v.Int("k"), v.String("level"), v.Bool("merge"), v.Ratio("stop"), v.String("model"))
	}
	if v.Int("cap") != 0 || v.Given("cap") {
		t.Errorf("cap without a default: %d, given %v", v.Int("cap"), v.Given("cap"))
	}
	d, _ := table.Parse("rag", nil)
	if d.Int("k") != 5 || d.Given("k") || !d.Bool("merge") || d.Ratio("stop") != 0.4 || d.String("level") != "sentence" {
		t.Errorf("defaults wrong")
	}
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		given []engine.Setting
		want  string
	}{
		{engine.Settings("k", "x"), `invalid option: k="x": give a whole number from 1 to 20 (chunks retrieved)`},
		{engine.Settings("k", " 0"), `invalid option: k=" 0": give a whole number from 1 to 20 (chunks retrieved)`}, // quoted as given
		{engine.Settings("cap", "-1"), `invalid option: cap="-1": give a whole number from 0 up (citations kept, 0 for no limit)`},
		{engine.Settings("stop", "1"), `invalid option: stop="1": give a number between 0 and 1, such as 0.4 (the share of the best kept)`},
		{engine.Settings("stop", "NaN"), `invalid option: stop="NaN": give a number between 0 and 1, such as 0.4 (the share of the best kept)`},
		{engine.Settings("stop", "-nan"), `invalid option: stop="-nan": give a number between 0 and 1, such as 0.4 (the share of the best kept)`},
		{engine.Settings("stop", "Inf"), `invalid option: stop="Inf": give a number between 0 and 1, such as 0.4 (the share of the best kept)`},
		{engine.Settings("merge", "perhaps"), `invalid option: merge="perhaps": give yes or no`},
		{engine.Settings("level", "page"), `invalid option: level="page": give sentence (RAC-S) or chunk (RAC-C)`},
		{engine.Settings("model", " "), `invalid option: model=" ": give the model whose work to use`},
		{engine.Settings("l_max", "3"), `invalid option: "l_max"; the rag strategy takes k, cap, stop, merge, level, model`},
		{engine.Settings("level_of_detail", "3"), `invalid option: "level_of_detail" (not here); the rag strategy takes k, cap, stop, merge, level, model`},
		// The first bad setting in the order given is the one reported.
		{engine.Settings("k", "3", "zz", "1", "k", "99", "aa", "2"), `invalid option: "zz"; the rag strategy takes k, cap, stop, merge, level, model`},
		{engine.Settings("merge", "x", "k", "0"), `invalid option: merge="x": give yes or no`},
	} {
		_, err := table.Parse("rag", c.given)
		if !errors.Is(err, engine.ErrOption) || err.Error() != c.want {
			t.Errorf("%v:\n got %v\nwant %s", c.given, err, c.want)
		}
	}
}

func TestOptionRange(t *testing.T) {
	t.Parallel()
	for i, want := range []string{"from 1 to 20", "from 0 up", "between 0 and 1", "yes|no", "sentence|chunk", "text"} {
		if got := table[i].Range(); got != want {
			t.Errorf("%s: range %q, want %q", table[i].Name, got, want)
		}
	}
	if n := len(table.Listed()); n != len(table)-1 {
		t.Errorf("%d listed, want all but the refused name", n)
	}
}
