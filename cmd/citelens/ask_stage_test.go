package main

import (
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
)

// TestStagesFollowNoColor: ask's stages are dimmed on a terminal unless
// NO_COLOR asks for no attributes, and then they carry no escape at all.
func TestStagesFollowNoColor(t *testing.T) {
	for _, plain := range []bool{false, true} {
		var stages strings.Builder
		p := &statementPrinter{w: &strings.Builder{}, stageW: &stages, showStages: true, plainStages: plain}
		p.event(engine.Stage("retrieving…"))
		got := stages.String()
		if !strings.Contains(got, "retrieving…") || strings.Contains(got, "\x1b") != !plain {
			t.Errorf("plain %v: stage written as %q", plain, got)
		}
	}
	t.Setenv("NO_COLOR", "1")
	if !noColor() {
		t.Error("NO_COLOR=1 is not read as no colour")
	}
	t.Setenv("NO_COLOR", "")
	if noColor() {
		t.Error("an empty NO_COLOR is read as no colour")
	}
}
