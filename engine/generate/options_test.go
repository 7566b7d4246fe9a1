package generate

import (
	"errors"
	"testing"

	"github.com/citelens/citelens/engine"
)

func TestOptions(t *testing.T) {
	t.Parallel()
	table := engine.Options{FormatOption, MaxCitations("", "")}
	v, err := table.Parse("test", engine.Settings("format", " LongCite-Model", "max_citations", "2 "))
	if err != nil || FormatOf(v, "gpt-4o") != LongCiteModel || v.Int("max_citations") != 2 {
		t.Fatalf("parsed %v %v", v, err)
	}
	for _, bad := range engine.Settings("format", "json", "max_citations", "-1") {
		if _, err := table.Parse("test", []engine.Setting{bad}); !errors.Is(err, engine.ErrOption) {
			t.Errorf("%s=%q: %v", bad.Name, bad.Value, err)
		}
	}
	if _, err := table.Parse("test", engine.Settings("max_citations", "x")); err == nil ||
		err.Error() != `invalid option: max_citations="x": give a whole number from 0 up (citations kept per statement, 0 for no limit)` {
		t.Errorf("max_citations=x: %v", err)
	}
}

func TestFormatFor(t *testing.T) {
	t.Parallel()
	table := engine.Options{FormatOption}
	for _, c := range []struct {
		format string
		model  string
		want   Format
	}{
		{"", "gpt-4o", OneShot},
		{"", "THUDM/LongCite-glm4-9b", LongCiteModel},
		{"one-shot", "THUDM/LongCite-glm4-9b", OneShot},
		{"longcite-model", "gpt-4o", LongCiteModel},
	} {
		var given []engine.Setting
		if c.format != "" {
			given = append(given, engine.Setting{Name: "format", Value: c.format})
		}
		v, _ := table.Parse("test", given)
		if got := FormatOf(v, c.model); got != c.want {
			t.Errorf("format %q, model %q: %s, want %s", c.format, c.model, got, c.want)
		}
	}
}
