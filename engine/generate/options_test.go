package generate

import (
	"errors"
	"testing"

	"github.com/citelens/citelens/engine"
)

func TestOptions(t *testing.T) {
	o := Options{MaxCitations: -1}
	for key, val := range map[string]string{"format": " LongCite-Model", "max_citations": "2 "} {
		if handled, err := o.ParseOption(key, val); !handled || err != nil {
			t.Fatalf("%s=%q: handled %v, %v", key, val, handled, err)
		}
	}
	if o != (Options{Format: LongCiteModel, MaxCitations: 2}) {
		t.Errorf("parsed %+v", o)
	}
	if handled, err := o.ParseOption("k", "3"); handled || err != nil || o.MaxCitations != 2 {
		t.Errorf("k: handled %v, %v, %+v", handled, err, o)
	}
	for key, val := range map[string]string{"format": "json", "max_citations": "-1"} {
		if handled, err := o.ParseOption(key, val); !handled || !errors.Is(err, engine.ErrOption) {
			t.Errorf("%s=%q: handled %v, %v", key, val, handled, err)
		}
	}
	if _, err := ParseMaxCitations("x"); err == nil || err.Error() != `invalid option: max_citations="x": give a whole number, 0 for no limit` {
		t.Errorf("max_citations=x: %v", err)
	}
}

func TestFormatFor(t *testing.T) {
	for _, c := range []struct {
		o     Options
		model string
		want  Format
	}{
		{Options{}, "gpt-4o", OneShot},
		{Options{}, "THUDM/LongCite-glm4-9b", LongCiteModel},
		{Options{Format: OneShot}, "THUDM/LongCite-glm4-9b", OneShot},
		{Options{Format: LongCiteModel}, "gpt-4o", LongCiteModel},
	} {
		if got := c.o.FormatFor(c.model); got != c.want {
			t.Errorf("%+v.FormatFor(%q) = %s, want %s", c.o, c.model, got, c.want)
		}
	}
}
