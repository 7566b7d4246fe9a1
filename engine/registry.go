package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/internal/config"
	"github.com/citelens/citelens/internal/didyoumean"
	"github.com/citelens/citelens/internal/fix"
	"github.com/citelens/citelens/llm"
)

// Env is what a strategy is built with: the library, and the model
// endpoint when one is configured.
type Env struct {
	Library *docstore.Library
	// Config is the model configuration (possibly unconfigured).
	Config config.Config
	// LLM is the client for Config, nil when no endpoint is configured.
	LLM *llm.Client

	server serverState // what the server said about itself (server.go)
}

// NewEnv builds an environment over lib with cfg, creating the client when
// cfg names an endpoint. A configuration that cannot make a client is not
// an error here: strategies that need a model report it through RequireLLM.
func NewEnv(lib *docstore.Library, cfg config.Config) *Env {
	env := &Env{Library: lib, Config: cfg}
	if cfg.Configured() == nil {
		if c, err := llm.New(cfg); err == nil {
			env.LLM = c
		}
	}
	return env
}

// RequireLLM returns the client, or an error wrapping ErrUnavailable that
// says what to configure.
func (e *Env) RequireLLM(strategy string) (*llm.Client, error) {
	if e.LLM != nil {
		return e.LLM, nil
	}
	reason := e.Config.Configured()
	if reason == nil {
		_, reason = llm.New(e.Config)
	}
	if reason == nil {
		reason = errors.New("no model endpoint configured")
	}
	return nil, fmt.Errorf("%w: %s needs a model: %v", ErrUnavailable, strategy, reason)
}

// Info is a registered strategy: the strategy itself and what front ends
// say about it.
type Info struct {
	Strategy    Strategy
	Description string // one line, for `citelens strategies`: how it works, in the papers' words
	// Purpose says in plain words what the strategy is for and what it
	// costs, for someone choosing one (the TUI's picker): no paper's
	// names, one or two short sentences.
	Purpose string
	// NeedsLLM says the strategy cannot run without a model endpoint; New
	// refuses it in an environment without one, saying what to set.
	NeedsLLM bool
	// Preparer, when the strategy needs work done on documents before it
	// can answer about them, does that work (see Preparer); nil for most.
	Preparer Preparer
	// Lazy says the strategy reads the scope through the library's index
	// and Runtime.View, not Runtime.Docs: Run does not load the
	// scope's documents first, so an answer costs what it reads rather
	// than the size of the library.
	Lazy bool
}

// Name is the strategy's name.
func (i Info) Name() string { return i.Strategy.Name() }

// DefaultStrategy is the strategy used when none is named: it needs no model.
const DefaultStrategy = "extractive"

var (
	regMu    sync.RWMutex
	registry = map[string]Info{}
)

// Register adds a strategy to the registry; strategy packages call it from
// init. Registering a name twice panics, as it is a programming error.
func Register(info Info) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[info.Name()]; dup {
		panic("engine: strategy registered twice: " + info.Name())
	}
	registry[info.Name()] = info
}

// Strategies lists the registered strategies, the default first and the
// rest by name.
func Strategies() []Info {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Info, 0, len(registry))
	for _, info := range registry {
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b Info) int {
		switch {
		case a.Name() == DefaultStrategy:
			return -1
		case b.Name() == DefaultStrategy:
			return 1
		}
		return strings.Compare(a.Name(), b.Name())
	})
	return out
}

// Lookup returns the registered strategy with that name.
func Lookup(name string) (Info, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	info, ok := registry[name]
	return info, ok
}

// New returns the named strategy, ready to Run in env: an error wrapping
// ErrUnknownStrategy when no strategy has that name, or ErrUnavailable
// when env lacks what it needs (a library; a model endpoint, for one that
// NeedsLLM), each saying what to do.
func New(name string, env *Env) (Strategy, error) {
	info, ok := Lookup(name)
	if !ok {
		names := make([]string, 0)
		for _, i := range Strategies() {
			names = append(names, i.Name())
		}
		return nil, fix.With(fmt.Errorf("%w %q%s; the strategies are: %s", ErrUnknownStrategy, name, didyoumean.Hint(name, names), strings.Join(names, ", ")),
			"See 'citelens strategies'.")
	}
	if env == nil || env.Library == nil {
		return nil, fmt.Errorf("%w: the %s strategy needs a library", ErrUnavailable, name)
	}
	if info.NeedsLLM {
		if _, err := env.RequireLLM(name); err != nil {
			return nil, fix.With(err, "The extractive strategy needs no model.")
		}
	}
	return info.Strategy, nil
}
