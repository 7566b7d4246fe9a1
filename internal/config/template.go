package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Template is the commented config file `citelens config init` writes:
// every setting of the table (settings.go) with its comment, commented
// out, so the file changes nothing until edited. It never holds a key:
// keys belong in the environment.
var Template = templateHeader(envNames()) + templateBody()

// templateHeader is the template's opening comment, naming the
// environment variables that override the file.
func templateHeader(env []string) string {
	var b strings.Builder
	b.WriteString(`# citelens configuration.
#
# citelens talks to any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp's
# server, Ollama...). Without one, only the extractive strategy answers.
# Environment variables override this file:
`)
	line := "#  "
	for i, e := range env {
		word := " " + e
		if i < len(env)-1 {
			word += ","
		} else {
			word += "."
		}
		if len(line)+len(word) > 78 {
			b.WriteString(line + "\n")
			line = "#  "
		}
		line += word
	}
	b.WriteString(line + "\n")
	b.WriteString(`#
# The API key is not kept here. Set it in your environment:
#   export OPENAI_API_KEY=...
# (A server on your own machine usually needs none.)
#
# Check the result with: citelens doctor
`)
	return b.String()
}

// TemplateWith is Template with the settings of set (by their file
// names: "base_url", "model") written in, each above its commented
// examples, so the file configures them and still documents the rest.
func TemplateWith(set map[string]string) (string, error) {
	lines := strings.SplitAfter(Template, "\n")
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		enc, err := toml.Marshal(map[string]string{k: set[k]})
		if err != nil {
			return "", fmt.Errorf("%s: %w", k, err)
		}
		at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "# "+k+" = ") })
		if at < 0 {
			return "", fmt.Errorf("the template has no setting %q", k)
		}
		lines = slices.Insert(lines, at, string(enc))
	}
	return strings.Join(lines, ""), nil
}

// WriteTemplate writes Template to path with mode 0600, making
// its directory (mode 0700) if needed. It refuses to replace an existing file
// unless force is set.
func WriteTemplate(path string, force bool) error {
	return WriteFile(path, Template, force)
}

// WriteFile writes a config file's text to path as WriteTemplate does.
func WriteFile(path, text string, force bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	if !force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: %s", ErrConfigExists, path)
		}
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		return nil
	}
	// Replace through a new file so the result has mode 0600 whatever the
	// old file's mode was, and a crash leaves the old file whole.
	tmp, err := os.CreateTemp(dir, ".config-*.toml")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	_, err = tmp.WriteString(text)
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
