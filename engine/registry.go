package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine/llm"
)

// Env is what a strategy is built with: the library, and the model
// endpoint when one is configured.
type Env struct {
	Library *docstore.Library
	// Config is the model configuration (possibly unconfigured).
	Config config.Config
	// LLM is the client for Config, nil when no endpoint is configured.
	LLM *llm.Client
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

// RequireLibraryLLM returns the client for strategy, which reads env's
// library with a model, or an error wrapping ErrUnavailable that says what
// is missing: the library, or the model endpoint (see RequireLLM). env may
// be nil.
func RequireLibraryLLM(env *Env, strategy string) (*llm.Client, error) {
	if env == nil || env.Library == nil {
		return nil, fmt.Errorf("%w: the %s strategy needs a library", ErrUnavailable, strategy)
	}
	return env.RequireLLM(strategy)
}

// Info describes a registered strategy.
type Info struct {
	Name        string
	Description string // one line, for `citelens strategies` and the picker
	NeedsLLM    bool   // it cannot run without a model endpoint
	// New builds the strategy. It returns an error wrapping ErrUnavailable
	// when the environment lacks what the strategy needs.
	New func(env *Env) (Strategy, error)
}

// ErrUnavailable means a strategy cannot run in this environment (no model
// endpoint configured, say); its message says what to set.
var ErrUnavailable = errors.New("strategy unavailable")

// ErrUnknownStrategy means no strategy has the requested name.
var ErrUnknownStrategy = errors.New("unknown strategy")

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
	if _, dup := registry[info.Name]; dup {
		panic("engine: strategy registered twice: " + info.Name)
	}
	registry[info.Name] = info
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
		case a.Name == DefaultStrategy:
			return -1
		case b.Name == DefaultStrategy:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
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

// New builds the named strategy in env.
func New(name string, env *Env) (Strategy, error) {
	info, ok := Lookup(name)
	if !ok {
		names := make([]string, 0)
		for _, i := range Strategies() {
			names = append(names, i.Name)
		}
		return nil, fmt.Errorf("%w %q; the strategies are: %s", ErrUnknownStrategy, name, strings.Join(names, ", "))
	}
	return info.New(env)
}
