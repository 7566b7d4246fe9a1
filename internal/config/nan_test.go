package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/config"
)

// TestNotANumberRefused: NaN and infinities, which pass every range
// check written as two comparisons, are refused as numbers and seconds,
// from the file (TOML's nan and inf) and from the environment.
func TestNotANumberRefused(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"temperature = nan", "temperature = inf", "temperature = -inf", `temperature = "NaN"`} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := config.LoadFrom(path, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "temperature") {
			t.Errorf("%s: %v, want refused", line, err)
		}
	}
	for _, v := range []string{"NaN", "Inf", "-Inf", "1e300"} {
		getenv := func(k string) string {
			if k == config.EnvTimeout {
				return v
			}
			return ""
		}
		if _, err := config.LoadFrom(filepath.Join(t.TempDir(), "none.toml"), getenv); err == nil {
			t.Errorf("%s=%s accepted", config.EnvTimeout, v)
		}
	}
}
