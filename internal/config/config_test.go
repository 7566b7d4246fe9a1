package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"
)

// testKey is an API key the tests check never leaks.
const testKey = "sk-test-4f9c2a7e1b3d5a6c8e0f"

func assertNoKey(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, testKey) {
		t.Fatalf("%s contains the API key: %s", what, s)
	}
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigDefaultsWithNothingSet(t *testing.T) {
	t.Parallel()
	cfg, err := config.LoadFrom(filepath.Join(t.TempDir(), "none.toml"), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FileFound || cfg.ContextWindow != config.DefaultContextWindow || cfg.MaxOutput != config.DefaultMaxOutput ||
		cfg.Timeout != config.DefaultTimeout || cfg.Model != "" {
		t.Fatalf("%+v", cfg)
	}
	if err := cfg.Configured(); !errors.Is(err, config.ErrNotConfigured) {
		t.Fatalf("Configured() = %v", err)
	}
}

func TestConfigPrecedence(t *testing.T) {
	t.Parallel()
	p := writeFile(t, `
base_url = "http://file:8000/v1/"
model = "file-model"
embed_model = "file-embed"
context_window = 32000
max_output = 1000
timeout = "45s"
temperature = 0.3
`)
	cfg, err := config.LoadFrom(p, env(map[string]string{
		config.EnvModel:         "env-model",
		config.EnvContextWindow: "16_000",
		config.EnvTimeout:       "90",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "http://file:8000/v1" || cfg.Model != "env-model" || cfg.EmbedModel != "file-embed" ||
		cfg.ContextWindow != 16000 || cfg.MaxOutput != 1000 || cfg.Timeout != 90*time.Second ||
		cfg.Temperature != 0.3 || cfg.ConnectTimeout != config.DefaultConnectTimeout {
		t.Fatalf("%+v", cfg)
	}
	want := map[string]string{"base_url": "file", "model": "env " + config.EnvModel, "context_window": "env " + config.EnvContextWindow}
	for k, v := range want {
		if cfg.Sources[k] != v {
			t.Fatalf("source of %s = %q, want %q", k, cfg.Sources[k], v)
		}
	}
	if err := cfg.Configured(); err != nil {
		t.Fatal(err)
	}
	if cfg.Analyzer() != "env-model" {
		t.Fatal(cfg.Analyzer())
	}
	if b := cfg.PromptBudget(); b != 16000-1000-1600 {
		t.Fatal(b)
	}
}

func TestConfigKeyOnlyMeansOpenAI(t *testing.T) {
	t.Parallel()
	cfg, err := config.LoadFrom(filepath.Join(t.TempDir(), "none.toml"), env(map[string]string{config.EnvAPIKey: testKey}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Endpoint() != config.OpenAIBaseURL || cfg.Model != config.DefaultOpenAIModel || cfg.EmbedModel != config.DefaultOpenAIEmbedModel {
		t.Fatalf("%+v", cfg)
	}
	if err := cfg.Configured(); err != nil {
		t.Fatal(err)
	}
}

func TestConfigBaseURLWithoutKeyOrModel(t *testing.T) {
	t.Parallel()
	cfg, err := config.LoadFrom(filepath.Join(t.TempDir(), "none.toml"), env(map[string]string{config.EnvBaseURL: "http://localhost:8080/v1"}))
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Configured()
	if !errors.Is(err, config.ErrNoModel) || !strings.Contains(err.Error(), "http://localhost:8080/v1") {
		t.Fatalf("Configured() = %v", err)
	}
	cfg.Model = "local"
	if err := cfg.Configured(); err != nil {
		t.Fatalf("a base URL without a key must be valid: %v", err)
	}
}

func TestConfigKeyInFileWarns(t *testing.T) {
	t.Parallel()
	p := writeFile(t, `api_key = "`+testKey+`"
base_url = "http://x/v1"
model = "m"
colour = "blue"
`)
	os.Chmod(p, 0o644)
	cfg, err := config.LoadFrom(p, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIKey != testKey {
		t.Fatal("key in file not read")
	}
	all := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{config.EnvAPIKey, "readable by other users", `"colour"`} {
		if !strings.Contains(all, want) {
			t.Fatalf("warnings %q lack %q", all, want)
		}
	}
	assertNoKey(t, "warnings", all)
	// The environment's key wins and no longer comes from the file.
	cfg, _ = config.LoadFrom(p, env(map[string]string{config.EnvAPIKey: "sk-env"}))
	if cfg.APIKey != "sk-env" || cfg.Sources["api_key"] != "env "+config.EnvAPIKey {
		t.Fatalf("%q from %q", cfg.APIKey, cfg.Sources["api_key"])
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		env  map[string]string
		want string
	}{
		{"model = \n", nil, "line 1"},
		{"context_window = \"big\"\n", nil, "context_window"},
		{"", map[string]string{config.EnvContextWindow: "lots"}, "CITELENS_CONTEXT_WINDOW"},
		{"", map[string]string{config.EnvTimeout: "soon"}, "CITELENS_TIMEOUT"},
		{"base_url = \"localhost:8000\"\n", nil, "base_url in"},
		{"", map[string]string{config.EnvBaseURL: "ftp://x"}, "OPENAI_BASE_URL"},
		{"max_output = 200000\n", nil, "leaves no room"},
		{"temperature = 3.0\n", nil, "between 0 and 2"},
		{"timeout = \"-1s\"\n", nil, "timeout"},
		{"embed_batch = 0\n", nil, "embed_batch"},
		{"", map[string]string{config.EnvRerankURL: "localhost:8081"}, "CITELENS_RERANK_URL"},
		{"rerank_timeout = \"0s\"\n", nil, "rerank_timeout"},
		{"rerank_top = 201\n", nil, "between 1 and 200"},
		{"rerank_batch = 0\n", nil, "rerank_batch"},
	} {
		_, err := config.LoadFrom(writeFile(t, tc.file), env(tc.env))
		if !errors.Is(err, config.ErrBadConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("file %q env %v: err %v, want one mentioning %q", tc.file, tc.env, err, tc.want)
		}
	}
}

func TestConfigPath(t *testing.T) {
	t.Setenv(config.EnvConfig, "")
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if p := config.Path(); p != "/xdg/citelens/config.toml" {
		t.Fatal(p)
	}
	t.Setenv(config.EnvConfig, "/elsewhere.toml")
	if p := config.Path(); p != "/elsewhere.toml" {
		t.Fatal(p)
	}
}

func TestTemplate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "citelens", "config.toml")
	if err := config.WriteTemplate(p, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, err %v", fi.Mode(), err)
	}
	// As written, the template changes nothing.
	cfg, err := config.LoadFrom(p, env(nil))
	if err != nil || len(cfg.Warnings) != 0 || !cfg.FileFound {
		t.Fatalf("%v %v", err, cfg.Warnings)
	}
	def := config.Default()
	if cfg.ContextWindow != def.ContextWindow || cfg.Model != "" || cfg.Timeout != def.Timeout {
		t.Fatalf("%+v", cfg)
	}
	// Every setting it shows parses when uncommented (one base_url).
	var lines []string
	seen := map[string]bool{}
	for _, l := range strings.Split(config.Template, "\n") {
		if strings.HasPrefix(l, "[") { // a table header such as [tui]
			lines = append(lines, l)
			continue
		}
		if k, _, ok := strings.Cut(strings.TrimPrefix(l, "# "), " = "); ok && !strings.Contains(k, " ") && !seen[k] {
			seen[k] = true
			lines = append(lines, strings.TrimPrefix(l, "# "))
		}
	}
	if len(seen) != 24 || seen["api_key"] {
		t.Fatalf("found %d settings in the template: %q", len(lines), lines)
	}
	cfg, err = config.LoadFrom(writeFile(t, strings.Join(lines, "\n")), env(nil))
	if err != nil || len(cfg.Warnings) != 0 || cfg.BaseURL != "http://localhost:8000/v1" {
		t.Fatalf("uncommented template: %v %v %+v", err, cfg.Warnings, cfg)
	}
	// No overwrite without force; force replaces and restores the mode.
	os.WriteFile(p, []byte("model = \"mine\"\n"), 0o644)
	if err := config.WriteTemplate(p, false); !errors.Is(err, config.ErrConfigExists) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "model = \"mine\"\n" {
		t.Fatal("file changed without force")
	}
	if err := config.WriteTemplate(p, true); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ = os.Stat(p)
	if string(b) != config.Template || fi.Mode().Perm() != 0o600 {
		t.Fatalf("forced write: mode %v", fi.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Fatalf("left temporary files: %v", ents)
	}
}

func TestSettingsHideTheKey(t *testing.T) {
	t.Parallel()
	cfg, err := config.LoadFrom(filepath.Join(t.TempDir(), "none.toml"), env(map[string]string{
		config.EnvAPIKey: testKey, config.EnvBaseURL: "https://user:pw@host.example/v1?key=" + testKey,
	}))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, s := range cfg.Settings() {
		all.WriteString(s.Name + "=" + s.Value + " (" + s.Source + ")\n")
	}
	assertNoKey(t, "settings", all.String())
	if !strings.Contains(all.String(), "api_key=set (env OPENAI_API_KEY)") || strings.Contains(all.String(), "pw@") {
		t.Fatal(all.String())
	}
}

func TestConfigTUITheme(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte("model = \"m\"\n\n[tui]\ntheme = \"high-contrast\"\n"), 0o600)
	c, err := config.LoadFrom(path, func(string) string { return "" })
	if err != nil || c.Theme != "high-contrast" || len(c.Warnings) != 0 || c.Sources["tui.theme"] != "file" {
		t.Errorf("[tui] theme: %q, warnings %v, err %v", c.Theme, c.Warnings, err)
	}
	os.WriteFile(path, []byte("[tui]\ntheme = \"x\"\nfont = \"y\"\n"), 0o600)
	c, _ = config.LoadFrom(path, func(string) string { return "" })
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "tui.font") {
		t.Errorf("unknown [tui] key: %v", c.Warnings)
	}
}

func TestRerankConfig(t *testing.T) {
	t.Parallel()
	p := writeFile(t, `
base_url = "http://chat:8000/v1"
model = "m"
rerank_model = "file-reranker"
rerank_url = "http://rerank:8081/v1/"
rerank_timeout = "2s"
rerank_top = 80
rerank_batch = 16
`)
	cfg, err := config.LoadFrom(p, env(map[string]string{config.EnvRerankModel: "env-reranker", config.EnvRerankAPIKey: "sk-r"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RerankModel != "env-reranker" || cfg.RerankURL != "http://rerank:8081/v1" || cfg.RerankTimeout != 2*time.Second ||
		cfg.RerankTop != 80 || cfg.RerankBatch != 16 || cfg.RerankAPIKey != "sk-r" ||
		cfg.Sources["rerank_model"] != "env "+config.EnvRerankModel || cfg.Sources["rerank_top"] != "file" {
		t.Fatalf("%+v", cfg)
	}
	var shown strings.Builder
	for _, s := range cfg.Settings() {
		shown.WriteString(s.Name + "=" + s.Value + " (" + s.Source + ")\n")
	}
	for _, want := range []string{"rerank_model=env-reranker (env CITELENS_RERANK_MODEL)", "rerank_url=http://rerank:8081/v1 (file)",
		"rerank_api_key=set (env CITELENS_RERANK_API_KEY)", "rerank_timeout=2s (file)", "rerank_top=80 (file)"} {
		if !strings.Contains(shown.String(), want) {
			t.Fatalf("settings lack %q:\n%s", want, shown.String())
		}
	}
	if strings.Contains(shown.String(), "sk-r\n") {
		t.Fatal("settings show the rerank key")
	}

	// Defaults: off, at the base URL, a few seconds, 50 candidates.
	cfg, err = config.LoadFrom(filepath.Join(t.TempDir(), "none.toml"), env(map[string]string{config.EnvBaseURL: "http://chat:8000/v1"}))
	if err != nil || cfg.RerankModel != "" || cfg.RerankEndpoint() != "http://chat:8000/v1" || cfg.RerankTop != config.DefaultRerankTop ||
		cfg.RerankTimeout != config.DefaultRerankTimeout || cfg.RerankBatch != config.DefaultRerankBatch {
		t.Fatalf("%v %+v", err, cfg)
	}
}

func TestConfigTUIGraphics(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte("[tui]\ngraphics = \"sixel\"\n"), 0o600)
	c, err := config.LoadFrom(path, func(string) string { return "" })
	if err != nil || c.Graphics != "sixel" || len(c.Warnings) != 0 || c.Sources["tui.graphics"] != "file" {
		t.Errorf("[tui] graphics: %q, warnings %v, err %v", c.Graphics, c.Warnings, err)
	}
}

// TestConfigDB: the library's address comes from the file or, before
// it, CITELENS_DB; config show masks its password; an address that is
// neither a file nor a PostgreSQL one is refused, naming where it came
// from.
func TestConfigDB(t *testing.T) {
	t.Parallel()
	const pw = "hunter2-s3cret"
	p := writeFile(t, `db = "postgres://ann:`+pw+`@db.example.com/team"`+"\n")
	cfg, err := config.LoadFrom(p, env(nil))
	if err != nil || cfg.DB != "postgres://ann:"+pw+"@db.example.com/team" {
		t.Fatalf("db from the file: %q, %v", cfg.DB, err)
	}
	shown := false
	for _, s := range cfg.Settings() {
		if strings.Contains(s.Value, pw) {
			t.Errorf("config show shows the password: %+v", s)
		}
		if s.Name == "db" {
			shown = s.Value == "postgres://ann:xxxxx@db.example.com/team" && s.Source == "file"
		}
	}
	if !shown {
		t.Errorf("db is not shown, masked, from the file: %+v", cfg.Settings())
	}
	cfg, err = config.LoadFrom(p, env(map[string]string{"CITELENS_DB": "host=/run/postgresql dbname=team"}))
	if err != nil || cfg.DB != "host=/run/postgresql dbname=team" || cfg.Sources["db"] != "env CITELENS_DB" {
		t.Fatalf("CITELENS_DB over the file: %q %q %v", cfg.DB, cfg.Sources["db"], err)
	}
	_, err = config.LoadFrom(writeFile(t, `db = "postgres:team"`+"\n"), env(nil))
	if !errors.Is(err, config.ErrBadConfig) || !strings.Contains(err.Error(), "db in ") || !strings.Contains(err.Error(), "postgres://") {
		t.Errorf("a bad db: %v", err)
	}
}

// TestInit writes a config file with an endpoint and a model, which reads
// back as configured and holds no key; refuses a bad endpoint, an
// endpoint without a model and an existing file.
func TestInit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "config.toml")
	set, err := config.Init(path, "http://127.0.0.1:11434/v1", "llama3.1:8b", false)
	if err != nil || len(set) != 2 {
		t.Fatalf("Init = %v, %v", set, err)
	}
	cfg, err := config.LoadFrom(path, func(string) string { return "" })
	if err != nil || cfg.BaseURL != "http://127.0.0.1:11434/v1" || cfg.Model != "llama3.1:8b" || cfg.Configured() != nil {
		t.Errorf("read back: %+v, %v, %v", cfg, err, cfg.Configured())
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "\napi_key =") {
		t.Errorf("the file sets a key:\n%s", b)
	}
	if _, err := config.Init(path, "http://127.0.0.1:8080/v1", "other", false); !errors.Is(err, config.ErrConfigExists) {
		t.Errorf("an existing file: %v", err)
	}
	for _, bad := range [][2]string{{"ftp://x/v1", "m"}, {"127.0.0.1:8080", "m"}, {"http://127.0.0.1:8080/v1", ""}} {
		if _, err := config.Init(filepath.Join(t.TempDir(), "c.toml"), bad[0], bad[1], false); err == nil {
			t.Errorf("config.Init(%q, %q) took it", bad[0], bad[1])
		}
	}
}
