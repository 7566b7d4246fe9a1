package main

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/citelens/citelens/citations"
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

// TestAskOnTerminal: on a terminal, ask's stages share one status line
// that the answer clears, so no "retrieving…" is left behind, and its
// lines are wrapped to the terminal's width, continuations indented.
func TestAskOnTerminal(t *testing.T) {
	var out, stages strings.Builder
	p := &statementPrinter{w: &out, stageW: &stages, showStages: true, transient: true, plainStages: true, width: 40}
	p.event(engine.Stage("retrieving…"))
	p.event(engine.Stage("ranking the sentences of a document whose name is long enough to pass the width"))
	st := citations.Statement{Text: "Governments derive their just powers from the consent of the governed, as the declaration says.",
		Citations: []citations.Span{{Doc: "d", DocName: "declaration.txt", Page: 1, First: 3, Last: 3,
			Text: "That to secure these rights, Governments are instituted among Men, deriving their just powers from the consent of the governed."}}}
	p.event(engine.Statement{Statement: st})
	p.finish(&engine.Answer{Statements: []citations.Statement{st}})

	// What a terminal shows of the stages: each \r\x1b[2K erases the line.
	s := stages.String()
	if strings.Contains(s, "\n") || !strings.HasSuffix(s, "\r\x1b[2K") {
		t.Errorf("the stages leave lines behind: %q", s)
	}
	for _, line := range strings.Split(s, "\r\x1b[2K") {
		if ansi.StringWidth(line) >= 40 {
			t.Errorf("a status line %q is wider than the terminal", line)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, line := range lines {
		if ansi.StringWidth(line) > 40 {
			t.Errorf("line %q is wider than the terminal's 40 columns:\n%s", line, out.String())
		}
	}
	if !strings.Contains(out.String(), "\n    consent of the governed.\"") && !strings.Contains(out.String(), "\n     ") {
		t.Errorf("the quote's continuation is not indented:\n%s", out.String())
	}
	if len(lines) < 8 {
		t.Errorf("nothing wrapped:\n%s", out.String())
	}
}
