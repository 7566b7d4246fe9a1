package main

import (
	"regexp"
	"strings"
	"testing"
)

// Every command's flag list names a flag's value as its usage does
// ("--strategy NAME", never Go's "string" or "int"), and writes each flag
// with the dashes its synopsis gives it ("--k N" in both, "-o FILE" in
// both).
func TestFlagHelpMatchesSynopsis(t *testing.T) {
	typeName := regexp.MustCompile(`^  (-{1,2}[a-z0-9-]+) (string|int|int64|uint|float|value|duration)\b`)
	flagLine := regexp.MustCompile(`^  (-{1,2})([a-z0-9-]+)`)
	for name, cmd := range commands {
		c := newCLI(t)
		out, _, code := c.run(name, "--help")
		if code != 0 {
			t.Errorf("%s --help: status %d", name, code)
			continue
		}
		for _, line := range strings.Split(out, "\n") {
			if m := typeName.FindStringSubmatch(line); m != nil {
				t.Errorf("citelens %s --help names %s's value %q, not what it is: %q", name, m[1], m[2], line)
			}
			m := flagLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			for _, d := range []string{"-", "--"} {
				other := "--"
				if d == "--" {
					other = "-"
				}
				written := regexp.MustCompile(`(^|[\s\[|(])` + d + regexp.QuoteMeta(m[2]) + `\b`)
				if written.MatchString(cmd.args) && m[1] == other {
					t.Errorf("citelens %s: the synopsis writes %s%s, the flag list %s%s", name, d, m[2], m[1], m[2])
				}
			}
		}
	}
}
