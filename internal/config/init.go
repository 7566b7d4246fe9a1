package config

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/citelens/citelens/internal/fix"
)

// Init writes a new config file at path, as `citelens config init` does:
// the commented template (Template), with the endpoint and model given
// written in (TemplateWith); both empty writes the bare template. An
// endpoint must be an http(s) URL and needs a model (a server of one's
// own has no default). The file never holds an API key: it is written
// with mode 0600 all the same, and an existing file is replaced only
// with force (ErrConfigExists). The command line and the TUI's choice of
// a model server on this machine both write through here. It returns
// the settings it wrote, by their file names.
func Init(path, endpoint, model string, force bool) (map[string]string, error) {
	set := map[string]string{}
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fix.With(fmt.Errorf("the endpoint %q is not an http(s) URL", endpoint), "Give the API root, e.g. http://127.0.0.1:11434/v1.")
		}
		set["base_url"] = endpoint
	}
	if model != "" {
		set["model"] = model
	}
	if endpoint != "" && model == "" {
		return nil, fix.With(errors.New("an endpoint needs a model: a server of your own has no default model"), "Name the model; `citelens doctor` lists the server's models.")
	}
	text, err := TemplateWith(set)
	if err != nil {
		return nil, err
	}
	if err := WriteFile(path, text, force); err != nil {
		if errors.Is(err, ErrConfigExists) {
			return nil, fix.With(err, "Edit it, or run `citelens config init --force` to replace it with the template.")
		}
		return nil, err
	}
	return set, nil
}
