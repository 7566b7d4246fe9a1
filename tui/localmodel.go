package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/tui/picker"
)

// A model in one step: with no model configured, the strategy picker
// looks for an OpenAI-compatible server on this machine's usual ports
// (llm.FindLocal, as 'citelens doctor' does, in a command: never on the
// Update loop) and offers each model it serves; choosing one writes the
// configuration as 'citelens config init --endpoint URL --model NAME'
// does (config.Init: base_url and model, never an API key) and makes the
// strategies that need a model available at once.

// groupLocal is the strategy picker's group of model servers found.
const groupLocal = "Or use a model server on this machine (writes the configuration)"

// tagNeedsModel is the tag of a strategy unavailable for want of a model.
const tagNeedsModel = "needs a model"

// configPath is where a server chosen is written (Options.ConfigPath).
func (m Model) configPath() string {
	if m.opts.ConfigPath != "" {
		return m.opts.ConfigPath
	}
	return config.Path()
}

// localPorts are where a model server is looked for (Options.LocalPorts).
func (m Model) localPorts() []llm.LocalPort {
	if m.opts.LocalPorts == nil {
		return llm.LocalPorts
	}
	return m.opts.LocalPorts
}

// offerLocalServers adds to the strategy picker's items, when a strategy
// among them needs a model that is not configured, a line saying that
// model servers are being looked for, and returns the command that looks
// (nil when none is needed).
func (m *Model) offerLocalServers(items *[]picker.Item) tea.Cmd {
	ports := m.localPorts()
	if m.opts.Env == nil || m.opts.Env.LLM != nil || len(ports) == 0 || !needsModel(*items) {
		return nil
	}
	*items = append(*items, picker.Item{Name: "looking…", Group: groupLocal, Tag: "looking",
		Description: "for a model server on " + portList(ports),
		Unavailable: "citelens is still looking for a model server on " + portList(ports)})
	return findLocalServers(m.bg.ctx, ports)
}

// needsModel reports whether an item is a strategy unavailable for want
// of a model.
func needsModel(items []picker.Item) bool {
	for _, it := range items {
		if it.Tag == tagNeedsModel {
			return true
		}
	}
	return false
}

// portList names ports as the picker says them: "11434 (Ollama), 8080
// (llama.cpp)".
func portList(ports []llm.LocalPort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = strconv.Itoa(p.Port) + " (" + p.Name + ")"
	}
	return "127.0.0.1, ports " + strings.Join(parts, ", ")
}

// localServersMsg carries the model servers found on this machine.
type localServersMsg struct {
	servers []llm.LocalServer
	ports   []llm.LocalPort
}

func findLocalServers(ctx context.Context, ports []llm.LocalPort) tea.Cmd {
	return func() tea.Msg {
		return localServersMsg{servers: llm.FindLocal(ctx, ports, llm.LocalTimeout), ports: ports}
	}
}

// localChoice is a model of a server found, as the picker offers it.
type localChoice struct {
	item   picker.Item
	server llm.LocalServer
	model  string
}

func (msg localServersMsg) update(m *Model) tea.Cmd {
	if m.picker == nil || m.picker.Kind != "strategy" {
		return nil // closed meanwhile: opened again, it looks again
	}
	var items []picker.Item
	for _, it := range m.picker.Items() {
		if it.Group != groupLocal {
			items = append(items, it)
		}
	}
	var choices []localChoice
	for _, s := range msg.servers {
		if len(s.Models) == 0 {
			items = append(items, picker.Item{Name: s.Name, Group: groupLocal, Tag: "no model",
				Description: "at " + s.URL + ", serving no model yet",
				Unavailable: "load or pull a model in " + s.Name + ", then open this list again"})
			continue
		}
		for _, model := range s.Models {
			it := picker.Item{Name: textproc.OneLine(model), Group: groupLocal,
				Description: textproc.OneLine(s.Name + " at " + s.URL),
				Detail:      "enter writes base_url and model (never an API key) to citelens's config file, as 'citelens config init' does ('citelens config path' names it)"}
			if l := strings.ToLower(model); strings.Contains(l, "embed") || strings.Contains(l, "rerank") {
				it.Tag, it.Unavailable = "cannot answer", "this model embeds or reranks text; it cannot write answers"
			}
			items = append(items, it)
			choices = append(choices, localChoice{item: it, server: s, model: model})
		}
	}
	if len(msg.servers) == 0 {
		items = append(items, picker.Item{Name: "none found", Group: groupLocal, Tag: "none found",
			Description: "no model server answers on " + portList(msg.ports),
			Unavailable: "start one (Ollama: 'ollama serve'; llama.cpp: 'llama-server') and open this list again, or run 'citelens config init --endpoint URL --model NAME'"})
	}
	m.picker.SetItems(items)
	m.picker.choose = func(m *Model, it picker.Item) tea.Cmd {
		for _, c := range choices {
			if c.item == it {
				m.setNotice("Writing the configuration for "+textproc.OneLine(c.model)+"…", false)
				return writeLocalConfig(m.opts.Library, m.configPath(), c.server, c.model)
			}
		}
		return m.setStrategy(it)
	}
	return nil
}

// chooseStrategy is the strategy picker's choice before any server is
// found: a strategy.
func (m *Model) chooseStrategy(it picker.Item) tea.Cmd { return m.setStrategy(it) }

// configWrittenMsg reports the configuration written for a local
// server and the strategies' environment read from it, or why not.
type configWrittenMsg struct {
	env    *engine.Env
	path   string
	server llm.LocalServer
	model  string
	err    error
}

// writeLocalConfig writes the configuration for model on server at path
// (config.Init) and reads it back, with the environment's overrides, as
// citelens reads it at start.
func writeLocalConfig(lib *docstore.Library, path string, server llm.LocalServer, model string) tea.Cmd {
	return func() tea.Msg {
		msg := configWrittenMsg{path: path, server: server, model: model}
		if _, msg.err = config.Init(path, server.URL, model, false); msg.err != nil {
			return msg
		}
		cfg, err := config.LoadFrom(path, os.Getenv)
		if err == nil {
			err = cfg.Configured()
		}
		if err != nil {
			msg.err = fmt.Errorf("wrote %s, but the configuration does not work yet: %w", path, err)
			return msg
		}
		msg.env = engine.NewEnv(lib, cfg)
		return msg
	}
}

func (msg configWrittenMsg) update(m *Model) tea.Cmd {
	path := textproc.OneLine(msg.path)
	switch {
	case errors.Is(msg.err, config.ErrConfigExists):
		m.setNotice(fmt.Sprintf("%s exists, and citelens does not change a file you may have edited: add base_url = %q and model = %q to it, then start citelens again.",
			path, msg.server.URL, msg.model), true)
		return nil
	case msg.err != nil:
		reason, how := fix.Message(msg.err)
		m.setNotice(strings.TrimSpace("Could not configure the model: "+reason+" "+how), true)
		return nil
	case msg.env.LLM == nil:
		_, err := msg.env.RequireLLM("")
		m.setNotice(fmt.Sprintf("Wrote %s, but the model cannot be used: %v", path, err), true)
		return nil
	}
	m.opts.Env = msg.env
	cmd := m.openStrategyPicker()
	m.setNotice(fmt.Sprintf("Configured %s at %s (written to %s): choose a strategy.", textproc.OneLine(msg.model), msg.server.URL, path), false)
	return cmd
}
