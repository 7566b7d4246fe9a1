package llmtest_test

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/citelens/citelens/llm/llmtest"
)

type jinaAnswer struct {
	Model   string `json:"model"`
	Results []struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
	} `json:"results"`
	Usage *struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

func decode[T any](t *testing.T, body io.Reader) T {
	t.Helper()
	var v T
	b, _ := io.ReadAll(body)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// The Jina/Cohere shape at /v1/rerank and /rerank: results best first, cut
// to top_n, scored as Relevance says, with usage.
func TestRerankJinaShape(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	root := strings.TrimSuffix(srv.URL, "/v1")
	body := `{"model":"test-rerank","query":"When was the bridge built?","top_n":2,
		"documents":["Penguins eat krill.","The bridge was built in 1890.","A bridge crosses the river."]}`
	for _, url := range []string{srv.URL + "/rerank", root + "/rerank"} {
		r := post(t, url, body)
		if r.StatusCode != 200 {
			t.Fatal(url, r.Status)
		}
		a := decode[jinaAnswer](t, r.Body)
		if a.Model != "test-rerank" || len(a.Results) != 2 || a.Results[0].Index != 1 || a.Results[1].Index != 2 ||
			a.Results[0].RelevanceScore != srv.Relevance("When was the bridge built?", "The bridge was built in 1890.") ||
			a.Usage == nil || a.Usage.PromptTokens == 0 {
			t.Fatalf("%s: %+v", url, a)
		}
	}
	reqs := srv.RerankRequests()
	if len(reqs) != 2 || reqs[0].TopN != 2 || len(reqs[0].Documents) != 3 || reqs[0].TEI {
		t.Fatalf("%+v", reqs)
	}
}

// TEI's shape: "texts" in, a bare list of {index, score} out, every text.
func TestRerankTEIShape(t *testing.T) {
	t.Parallel()
	for _, teiOnly := range []bool{false, true} {
		var opts []llmtest.Option
		if teiOnly {
			opts = append(opts, llmtest.WithTEIRerank())
		}
		srv := llmtest.New(t, opts...)
		root := strings.TrimSuffix(srv.URL, "/v1")
		r := post(t, root+"/rerank", `{"query":"bridge","texts":["Penguins.","The bridge."]}`)
		a := decode[[]struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		}](t, r.Body)
		if r.StatusCode != 200 || len(a) != 2 || a[0].Index != 1 || a[0].Score <= a[1].Score {
			t.Fatalf("tei only %v: %s %+v", teiOnly, r.Status, a)
		}
		r = post(t, root+"/rerank", `{"model":"test-rerank","query":"bridge","documents":["The bridge."]}`)
		b, _ := io.ReadAll(r.Body)
		if teiOnly && (r.StatusCode != 422 || !strings.Contains(string(b), "missing field `texts`")) ||
			!teiOnly && r.StatusCode != 200 {
			t.Fatalf("tei only %v, Jina's shape: %s %s", teiOnly, r.Status, b)
		}
	}
}

func TestRerankRefusals(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithKey("sk-k"), llmtest.WithRerankLimit(2))
	auth := []string{"Authorization", "Bearer sk-k"}
	for body, status := range map[string]int{
		`{`:                               400,
		`{"query":"q","documents":["a"]}`: 400,
		`{"model":"test-rerank","documents":["a"]}`:                           400,
		`{"model":"test-rerank","query":"q","documents":[]}`:                  400,
		`{"model":"test-rerank","query":"q","documents":[1]}`:                 400,
		`{"model":"test-rerank","query":"q","documents":["a"],"top_n":-1}`:    400,
		`{"model":"nope","query":"q","documents":["a"]}`:                      404,
		`{"model":"test-rerank","query":"q","documents":["a","b","c"]}`:       413,
		`{"model":"test-rerank","query":"q","documents":["a","b"],"top_n":0}`: 200,
	} {
		if r := post(t, srv.URL+"/rerank", body, auth...); r.StatusCode != status {
			t.Errorf("%s: %s, want %d", body, r.Status, status)
		}
	}
	if r := post(t, srv.URL+"/rerank", `{"model":"test-rerank","query":"q","documents":["a"]}`); r.StatusCode != 401 {
		t.Fatal(r.Status)
	}
}

// Scripted replies: faults, results sent as given, raw bodies.
func TestRerankScriptedReplies(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.EnqueueRerank(
		llmtest.RerankReply{Reply: llmtest.Status(503)},
		llmtest.RerankReply{Results: []llmtest.RerankResult{{Index: 7, Score: 1}}},
		llmtest.RerankReply{Raw: `{"results":[{"index":0,"relevance_score":null}]}`},
		llmtest.RerankReply{Reply: llmtest.Reply{Malformed: true}},
	)
	body := `{"model":"test-rerank","query":"q","documents":["a"]}`
	if r := post(t, srv.URL+"/rerank", body); r.StatusCode != 503 {
		t.Fatal(r.Status)
	}
	if a := decode[jinaAnswer](t, post(t, srv.URL+"/rerank", body).Body); len(a.Results) != 1 || a.Results[0].Index != 7 {
		t.Fatalf("%+v", a)
	}
	if b, _ := io.ReadAll(post(t, srv.URL+"/rerank", body).Body); !strings.Contains(string(b), "null") {
		t.Fatalf("%s", b)
	}
	b, _ := io.ReadAll(post(t, srv.URL+"/rerank", body).Body)
	if json.Valid(b) {
		t.Fatalf("malformed reply is valid JSON: %s", b)
	}
	if a := decode[jinaAnswer](t, post(t, srv.URL+"/rerank", body).Body); len(a.Results) != 1 || a.Results[0].Index != 0 {
		t.Fatalf("after the queue: %+v", a)
	}
}
