package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// LocalPort is a port of this machine on which an OpenAI-compatible
// server usually listens, and the server that does.
type LocalPort struct {
	Port int
	Name string // "Ollama"
}

// LocalPorts are the usual ports of local model servers, in the order
// FindLocal reports them.
var LocalPorts = []LocalPort{
	{11434, "Ollama"},
	{8080, "llama.cpp"},
	{8000, "vLLM"},
	{1234, "LM Studio"},
}

// LocalServer is an OpenAI-compatible server FindLocal found.
type LocalServer struct {
	Name   string   `json:"name"`   // the server usually on its port
	URL    string   `json:"url"`    // its base URL, ending in /v1
	Models []string `json:"models"` // what GET /v1/models lists, sorted
}

// LocalTimeout bounds each of FindLocal's requests: a server on this
// machine answers a model list in milliseconds, and a port with nothing
// on it refuses at once.
const LocalTimeout = 700 * time.Millisecond

// FindLocal asks 127.0.0.1 on each of ports, all at once, for its models
// (GET /v1/models, within timeout each) and returns the servers that
// list them, in the order of ports. Only the loopback address is asked:
// nothing leaves the machine, and no proxy is used. A server that
// answers with no model list (another program on the port) is left out.
func FindLocal(ctx context.Context, ports []LocalPort, timeout time.Duration) []LocalServer {
	client := &http.Client{
		Timeout:   timeout,
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		// A redirect would lead off the machine: not followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	found := make([]*LocalServer, len(ports))
	var wg sync.WaitGroup
	for i, p := range ports {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := fmt.Sprintf("http://127.0.0.1:%d/v1", p.Port)
			if models, err := listModels(ctx, client, base); err == nil {
				found[i] = &LocalServer{Name: p.Name, URL: base, Models: models}
			}
		}()
	}
	wg.Wait()
	var out []LocalServer
	for _, s := range found {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// listModels reads an OpenAI model list from base.
func listModels(ctx context.Context, client *http.Client, base string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var list struct {
		Data *[]struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&list); err != nil {
		return nil, err
	}
	if list.Data == nil {
		return nil, fmt.Errorf("no model list")
	}
	models := make([]string, 0, len(*list.Data))
	for _, m := range *list.Data {
		if m.ID != "" {
			models = append(models, m.ID)
		}
	}
	slices.Sort(models)
	return models, nil
}
