package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/humanize"
	"github.com/citelens/citelens/llm"
)

// serverState is what an Env knows of its server: what the server said
// about itself, asked once, and the most of a prompt it was seen to read
// when it cut one.
type serverState struct {
	mu    sync.Mutex
	asked bool
	info  llm.Server
	read  int // prompt tokens the server read of a prompt it cut; 0 if none was cut
}

// Server returns what the endpoint says about itself (llm.Client.Server):
// its kind and the context window it gives the model. It asks the first
// time only, and again after a reply showed the server had cut a prompt
// (an Ollama model is loaded by then, and /api/ps tells its window). The
// zero Server when no endpoint is configured.
func (e *Env) Server(ctx context.Context) llm.Server {
	if e.LLM == nil {
		return llm.Server{}
	}
	e.server.mu.Lock()
	defer e.server.mu.Unlock()
	if !e.server.asked {
		e.server.info = e.LLM.Server(ctx)
		e.server.asked = true
	}
	return e.server.info
}

// promptCut records that the server read only read tokens of a prompt it
// cut: later answers fit their prompts to that, and the server is asked
// about itself again.
func (e *Env) promptCut(read int) {
	e.server.mu.Lock()
	defer e.server.mu.Unlock()
	if e.server.read == 0 || read < e.server.read {
		e.server.read = read
	}
	e.server.asked = false
}

// AnswerConfig is the configuration an answer runs with: Config, with the
// context window the server really gives the model when the server says
// or was seen to cut a prompt, and note, when that differs from what the
// configuration says, a sentence saying so.
//
// The window, from the most to the least certain: what the server says
// (vLLM's max_model_len, llama.cpp's n_ctx, Ollama's loaded context) and
// what it was seen to read, whichever is smaller; context_window when set
// in the config file or the environment; for Ollama, its default; the
// default otherwise. The output limit is kept to half the window.
func (e *Env) AnswerConfig(ctx context.Context) (cfg config.Config, note string) {
	cfg = e.Config
	if e.LLM == nil {
		return cfg, ""
	}
	s := e.Server(ctx)
	e.server.mu.Lock()
	read := e.server.read
	e.server.mu.Unlock()
	window, source := s.Window, s.Source
	if read > 0 && (window == 0 || read < window) {
		window, source = read, "seen when it cut a prompt to that"
	}
	set := cfg.Sources["context_window"]
	explicit := set != "" && set != "default"
	switch {
	case window > 0 && (!explicit || window < cfg.ContextWindow):
		if explicit {
			note = fmt.Sprintf("context_window is %s tokens, but the server gives %s %s (%s); prompts are fitted to %s",
				humanize.Count(cfg.ContextWindow), cfg.Model, humanize.Count(window), source, humanize.Count(window))
		}
		cfg.ContextWindow = window
	case window == 0 && s.Kind == llm.KindOllama && !explicit:
		cfg.ContextWindow = llm.OllamaDefaultWindow
		note = fmt.Sprintf("Ollama does not say the context window of %s until the model is loaded; assuming its default of %s tokens (set context_window if the server runs with OLLAMA_CONTEXT_LENGTH)",
			cfg.Model, humanize.Count(llm.OllamaDefaultWindow))
	}
	if cfg.MaxOutput > cfg.ContextWindow/2 {
		cfg.MaxOutput = cfg.ContextWindow / 2
	}
	return cfg, note
}
