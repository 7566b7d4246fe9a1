package main

import (
	"os"
	"strings"
	"testing"

	"github.com/citelens/citelens/engine"
)

// TestBadOptionSameEveryRun: with several bad options, ask reports the
// first in the order given, and the same message every run (options once
// went through a map, and the reported key changed from run to run).
func TestBadOptionSameEveryRun(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("add", sample)
	args := []string{"ask", "--opt", "merge=perhaps", "--opt", "colour=blue", "--opt", "stop=2", "--opt", "pages=x", "--k", "0", "taxes"}
	_, first, code := c.run(args...)
	if code != 1 || !strings.Contains(first, `merge="perhaps"`) || !strings.Contains(first, "'citelens strategies extractive' lists its options.") {
		t.Fatalf("status %d:\n%s", code, first)
	}
	for range 30 {
		if _, errs, _ := c.run(args...); errs != first {
			t.Fatalf("another run said\n%s\nthe first said\n%s", errs, first)
		}
	}
	_, errs, _ := c.run("ask", "--opt", "colour=blue", "--opt", "merge=perhaps", "taxes")
	if !strings.Contains(errs, `"colour"; the extractive strategy takes k, stop, pages, merge`) {
		t.Errorf("the first bad option given is not the one reported:\n%s", errs)
	}
}

// TestAskDeadEndpoint: asking a model that cannot be reached says so and
// what to do, as derive does, rather than reporting an empty answer.
func TestAskDeadEndpoint(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CITELENS_CONFIG", home+"/none.toml")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("CITELENS_MODEL", "some-model")
	t.Setenv("CITELENS_EMBED_MODEL", "")
	t.Setenv("CITELENS_TIMEOUT", "5s")
	c := newCLI(t)
	c.ok("add", sample)
	out, errs, code := c.run("ask", "--strategy", "longcite", "What do governments derive their powers from?")
	if code != 1 || !strings.Contains(errs, "cannot connect") || !strings.Contains(errs, "Is the server running? Check OPENAI_BASE_URL") {
		t.Errorf("status %d, stderr:\n%s", code, errs)
	}
	if strings.Contains(out, "No supporting sentences found") {
		t.Errorf("a failed answer reads as an empty one:\n%s", out)
	}
}

// TestREADMEOptions: the README's table of strategy options is what
// `citelens strategies --markdown` writes from the strategies' option
// tables. After changing an option, paste that command's output between
// the markers.
func TestREADMEOptions(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- options: citelens strategies --markdown -->\n", "<!-- end of options -->"
	_, rest, ok := strings.Cut(string(readme), begin)
	table, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("the README has no options table between %q and %q", begin, end)
	}
	c := newCLI(t)
	if want := c.ok("strategies", "--markdown"); table != want {
		t.Errorf("the README's options table is out of date; replace it with the output of `go run ./cmd/citelens strategies --markdown`:\n%s", want)
	}
}

// TestEveryStrategySaysWhatItIsFor: every strategy the binary has says in
// plain words what it is for (the TUI's picker shows it), without the
// papers' names.
func TestEveryStrategySaysWhatItIsFor(t *testing.T) {
	t.Parallel()
	for _, info := range engine.Strategies() {
		p := info.Purpose
		if p == "" || len(p) > 130 {
			t.Errorf("%s: purpose %q: want one or two short sentences", info.Name(), p)
		}
		for _, jargon := range []string{"LongCite", "RAIDD", "OkraLong", "LAC", "RAC", "CoF", "BM25", "chunk"} {
			if strings.Contains(p, jargon) {
				t.Errorf("%s: purpose %q speaks of %s", info.Name(), p, jargon)
			}
		}
	}
}
