package fix_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/citelens/citelens/internal/fix"
)

type ownFix struct{}

func (ownFix) Error() string { return "own" }
func (ownFix) Fix() string   { return "do this" }

func TestOf(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{base, ""},
		{fix.With(base, "try %s", "again"), "try again"},
		{fmt.Errorf("wrapped: %w", fix.With(base, "inner")), "inner"},
		{fix.With(fix.With(base, "inner"), "outer"), "outer"},
		{fmt.Errorf("own: %w", ownFix{}), "do this"},
		{errors.Join(base, fmt.Errorf("x: %w", ownFix{})), "do this"},
		{fix.With(base, ""), ""},
	} {
		if got := fix.Of(c.err); got != c.want {
			t.Errorf("Of(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	err := fix.With(base, "x")
	if !errors.Is(err, base) || err.Error() != "boom" {
		t.Errorf("With hides its reason: %v", err)
	}
	if fix.With(nil, "x") != nil {
		t.Error("With(nil) is not nil")
	}
}
