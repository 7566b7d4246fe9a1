package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Template is the commented config file `citelens config init` writes.
// Every setting is commented out, so the file changes nothing until edited.
// It never holds an API key: the key belongs in the environment.
const Template = `# citelens configuration.
#
# citelens talks to any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp's
# server, Ollama...). Without one, only the extractive strategy answers.
# Environment variables override this file:
#   OPENAI_BASE_URL, OPENAI_API_KEY, CITELENS_MODEL, CITELENS_EMBED_MODEL,
#   CITELENS_ANALYZER_MODEL, CITELENS_CONTEXT_WINDOW, CITELENS_MAX_OUTPUT,
#   CITELENS_TIMEOUT, CITELENS_ANSWER_TIMEOUT, CITELENS_RERANK_MODEL,
#   CITELENS_RERANK_URL, CITELENS_RERANK_API_KEY, CITELENS_JUDGE_MODEL,
#   CITELENS_JUDGE_BASE_URL, CITELENS_JUDGE_API_KEY.
#
# The API key is not kept here. Set it in your environment:
#   export OPENAI_API_KEY=...
# (A server on your own machine usually needs none.)
#
# Check the result with: citelens doctor

# The API root, ending in /v1. Leave unset to use api.openai.com.
# base_url = "http://localhost:8000/v1"    # vLLM
# base_url = "http://localhost:8080/v1"    # llama.cpp server
# base_url = "http://localhost:11434/v1"   # Ollama

# The model that answers questions. Against api.openai.com it defaults to
# gpt-4o-mini; other servers need it named (citelens doctor lists them).
# model = "THUDM/LongCite-llama3.1-8b"

# The embedding model for dense retrieval. Unset: retrieval uses BM25 only
# (against api.openai.com it defaults to text-embedding-3-small).
# embed_model = "BAAI/bge-m3"

# A small, fast model that classifies questions (OkraLong). Unset: model.
# analyzer_model = ""

# The model's context window and the most tokens one answer may use.
# citelens asks vLLM, llama.cpp's server and Ollama for the window they
# really give the model and fits prompts to it (citelens doctor shows it).
# context_window = 128000
# max_output = 4096

# Sampling temperature, 0 to 2. 0 keeps answers and citations repeatable.
# temperature = 0.0

# How long one request (a whole streamed answer) may take, and how long
# making the connection may take.
# timeout = "120s"
# connect_timeout = "10s"

# How long one answer may take, all of its model calls together, and the
# most statements one answer keeps.
# answer_timeout = "10m"
# max_statements = 300

# The judge of citelens eval --judge: another model, on this endpoint or
# another (its key in CITELENS_JUDGE_API_KEY). Unset: the answering model.
# judge_model = "gpt-4o"
# judge_base_url = "https://api.openai.com/v1"

# Texts per embeddings request.
# embed_batch = 64

# A reranker (cross-encoder) that reorders the best retrieval candidates.
# Any server with a /rerank endpoint in Jina's and Cohere's shape (vLLM,
# llama.cpp's llama-server --reranking, Infinity) or TEI's serves one.
# Unset: results keep the order BM25 and dense retrieval give them.
# rerank_model = "BAAI/bge-reranker-v2-m3"

# The root /rerank is posted to; unset, base_url. OPENAI_API_KEY is sent
# only to base_url's own host: a reranker elsewhere that needs a key gets
# CITELENS_RERANK_API_KEY (from the environment, never this file).
# rerank_url = "http://localhost:8081/v1"

# The longest reranking may take before the retrieval order is used
# instead, how many candidates it reorders (1 to 200), and how many go in
# one request (TEI accepts 32 unless started with --max-client-batch-size).
# rerank_timeout = "5s"
# rerank_top = 50
# rerank_batch = 32
# Scanned PDFs: "auto" reads the pages without a text layer with Tesseract
# (Debian: tesseract-ocr, tesseract-ocr-eng, poppler-utils), as
# 'citelens add --ocr' does; "off" refuses them. ocr_lang: Tesseract
# languages joined by +, such as "eng+deu".
# ocr = "off"
# ocr_lang = "eng"

# The terminal UI. theme: dark, light, high-contrast or no-color; unset, it
# follows the terminal's background (and NO_COLOR). --theme overrides it.
[tui]
# theme = "dark"
`

// WriteTemplate writes Template to path with mode 0600, making
// its directory (mode 0700) if needed. It refuses to replace an existing file
// unless force is set.
func WriteTemplate(path string, force bool) error {
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
		_, err = f.WriteString(Template)
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
	_, err = tmp.WriteString(Template)
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
