// Package layers_test holds the one test of the module's shape: which
// package may import which. docs/ARCHITECTURE.md draws the same layers.
package layers_test

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/citelens/citelens"

// layers are the ranks of the module's packages, lowest first. A package
// may import packages of its own rank or below, never above: dependencies
// point one way, cmd → tui → engine → citations → docstore → the text
// kernel. The first prefix that matches a package's path gives its rank,
// so more specific prefixes come first.
var layers = []struct {
	prefix string
	rank   int
	what   string
}{
	// 0: the kernel every package may use; it imports nothing of ours
	// but itself.
	{"internal/", 0, "text, numbers, settings, errors' fixes, the system's viewer: the kernel"},
	{"themes", 0, "colours and styles"},
	// 1: services below the library that know no documents: the model
	// client (HTTP only) and ordered key-value storage.
	{"llm/llmtest/cmd/", 8, "the scripted server as a program"},
	{"llm", 1, "the OpenAI-compatible client and its scripted server"},
	{"storage", 1, "transactional ordered key-value storage: the seam and its backends"},
	// 2-3: the store: a document's shapes and geometry, then the library.
	{"docstore/", 2, "the store's record shapes: structure, page geometry"},
	{"docstore", 3, "the library: records, index, vectors, answers, check, salvage"},
	// 4: ingestion: format readers, then the pipeline that writes
	// documents into the store.
	{"ingest/", 4, "format readers, sentences, headings"},
	{"ingest", 4, "the add pipeline"},
	// 5: the answer model: statements, citations, their checks, exports
	// and pictures of pages.
	{"citations/reanchor", 5, "a citation carried to a document's next version: pure alignment"},
	{"citations/pagerender", 5, "PDF pages to pixels: PDFium in WebAssembly"},
	{"citations", 5, "statements, citations, exports, citations drawn on pages"},
	// 6-7: the engine: the runtime and retrieval, then what builds on them.
	{"engine/retrieve", 6, "ranking"},
	{"engine/rerank", 6, "the reranker client"},
	{"engine/dense", 6, "embeddings stored in the library"},
	{"engine/", 7, "strategies, generation, judge, evaluation"},
	{"engine", 6, "the runtime"},
	// 8: front ends.
	{"mcpserver", 8, "the MCP server"},
	{"tui", 8, "the terminal UI"},
	{"cmd/", 8, "the command"},
	{"bench/", 8, "benchmarks"},
}

func rankOf(t *testing.T, pkg string) int {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	for _, l := range layers {
		// "docstore/" names the subpackages only; "llm" the package
		// and those below it.
		below := strings.HasSuffix(l.prefix, "/")
		if below && strings.HasPrefix(rel, l.prefix) || !below && (rel == l.prefix || strings.HasPrefix(rel, l.prefix+"/")) {
			return l.rank
		}
	}
	t.Errorf("%s has no layer: add it to the table in layers_test.go", rel)
	return -1
}

// testMayImport reports whether a test of pkg may import imp from a
// layer above: a test rig (docstoretest, enginetest, llmtest…), as
// engine/retrieve's tests build a library with engine/enginetest, or a
// package of the same tree, as the engine's black-box tests answer
// through engine/generate.
func testMayImport(pkg, imp string) bool {
	rel, relImp := strings.TrimPrefix(pkg, module+"/"), strings.TrimPrefix(imp, module+"/")
	return strings.HasSuffix(relImp, "test") && !strings.HasPrefix(relImp, "cmd/") ||
		strings.Split(rel, "/")[0] == strings.Split(relImp, "/")[0]
}

// TestLayers fails for every import that points up the table above.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		"{{.ImportPath}}|{{join .Imports \" \"}}|{{join .TestImports \" \"}} {{join .XTestImports \" \"}}",
		"./...").Output()
	if err != nil {
		t.Skipf("go list: %v (the go command is needed to read the import graph)", err)
	}
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 3)
		pkg, imports, testImports := f[0], strings.Fields(f[1]), strings.Fields(f[2])
		if pkg == module {
			continue // this test
		}
		from := rankOf(t, pkg)
		check := func(imp string, test bool) {
			if !strings.HasPrefix(imp, module) || imp == pkg {
				return
			}
			if to := rankOf(t, imp); to > from && !(test && testMayImport(pkg, imp)) {
				who := strings.TrimPrefix(pkg, module+"/") + " imports "
				if test {
					who = strings.TrimPrefix(pkg, module+"/") + "'s tests import "
				}
				bad = append(bad, who+strings.TrimPrefix(imp, module+"/"))
			}
		}
		for _, imp := range imports {
			check(imp, false)
		}
		for _, imp := range testImports {
			check(imp, true)
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("import points up a layer: %s", b)
	}
}

// strategies are the packages of the answering strategies, one per paper.
// What two of them share lives in engine/generate (or below), never in one
// of them, so that each can change with its paper alone.
var strategies = []string{"engine/cof", "engine/dag", "engine/extractive", "engine/longcite", "engine/okra", "engine/raidd"}

// TestStrategiesImportNoStrategy fails when a strategy's package imports
// another's (its tests may, to compare answers).
func TestStrategiesImportNoStrategy(t *testing.T) {
	pkgs := make([]string, len(strategies))
	for i, s := range strategies {
		pkgs[i] = "./" + s
	}
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}"}, pkgs...)...).Output()
	if err != nil {
		t.Skipf("go list: %v (the go command is needed to read the import graph)", err)
	}
	isStrategy := map[string]bool{}
	for _, s := range strategies {
		isStrategy[module+"/"+s] = true
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "|")
		if !isStrategy[pkg] {
			continue
		}
		seen++
		for _, imp := range strings.Fields(imports) {
			if isStrategy[imp] {
				t.Errorf("strategy %s imports strategy %s: move what they share to engine/generate",
					strings.TrimPrefix(pkg, module+"/"), strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
	if seen != len(strategies) {
		t.Errorf("go list found %d of the %d strategies %v: update the list", seen, len(strategies), strategies)
	}
}
