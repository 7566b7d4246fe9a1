package main

import (
	"strings"
	"testing"
)

// TestScopeOfEmptyLibrary: derive and embed over a library that does not
// exist, or holds nothing, say so and succeed; a --doc that names nothing
// is an error that says how to list the library.
func TestScopeOfEmptyLibrary(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"derive", "embed"} {
		c := newCLI(t)
		if out := c.ok(cmd, "--status"); !strings.Contains(out, "library is empty") {
			t.Errorf("%s --status without a library: %q", cmd, out)
		}
		id := strings.Fields(c.ok("add", sample))[0]
		c.ok("rm", id)
		if out := c.ok(cmd, "--status"); !strings.Contains(out, "library is empty") {
			t.Errorf("%s --status of an empty library: %q", cmd, out)
		}
		c.ok("add", sample)
		if _, errs, code := c.run(cmd, "--status", "--doc", "nothing"); code != 1 || !strings.Contains(errs, "citelens ls") {
			t.Errorf("%s --doc nothing: status %d, %q", cmd, code, errs)
		}
	}
}
