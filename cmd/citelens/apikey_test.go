package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citelens/citelens/llm/llmtest"
)

// TestAPIKeyNeverWritten asks through the real command with an API key in
// the environment — successfully, with a stream cut off, and against a
// server that echoes the key in its error — saves the answers, exports
// each in every format, and then searches every file citelens wrote, and
// everything it printed, for the key.
func TestAPIKeyNeverWritten(t *testing.T) {
	const key = "sk-citelens-test-9f3a7c21e6b84d0f"
	srv := llmtest.New(t, llmtest.WithKey(key))
	srv.Enqueue(
		llmtest.Text("<statement>Governments derive their just powers from the consent of the governed.<cite>[9-9]</cite></statement>"),
		llmtest.Reply{Deltas: []string{"<statement>A finished statement.<cite>[1-1]</cite></statement>", "<statement>cut"}, Drop: true, DropAfter: 2},
		llmtest.Reply{Status: http.StatusBadRequest, Body: `{"error":{"message":"invalid request from key ` + key + `","type":"invalid_request_error"}}`},
	)
	home := modelEnv(t, srv, key, "")
	exports := t.TempDir()

	db := filepath.Join(home, "data", "citelens", "library.db")
	run, printed := recordedRun(db)
	if code := run("add", sample); code != 0 {
		t.Fatalf("add: status %d\n%s", code, printed.String())
	}
	if code := run("ask", "--strategy", "longcite", "What do governments derive their powers from?"); code != 0 {
		t.Fatalf("ask: status %d\n%s", code, printed.String())
	}
	if code := run("ask", "--json", "--strategy", "longcite", "What grievances are listed?"); code == 0 {
		t.Error("ask with a dropped stream reported success")
	}
	if code := run("ask", "--strategy", "longcite", "Who signed it?"); code == 0 {
		t.Error("ask against a refusing server reported success")
	}
	if !strings.Contains(printed.String(), "consent of the governed") || !strings.Contains(printed.String(), "[redacted]") {
		t.Fatalf("the asks did not go as scripted:\n%s", printed.String())
	}
	for _, r := range srv.Requests() {
		if !r.Auth {
			t.Error("a request went without the API key")
		}
	}

	var list []struct {
		ID string `json:"answer_id"`
	}
	var out bytes.Buffer
	if code := runQuiet(db, &out, "answers", "--json"); code != 0 {
		t.Fatal("answers failed")
	}
	// The refused ask failed before it stated anything: it is not saved
	// (engine.Save).
	if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list) != 2 {
		t.Fatalf("saved answers %s (%v): want 2", out.String(), err)
	}
	for _, a := range list {
		for _, f := range []string{"md", "json", "longbench", "html"} {
			if code := run("export", a.ID, "--format", f, "-o", filepath.Join(exports, a.ID+"."+f)); code != 0 {
				t.Fatalf("export %s %s: status %d\n%s", a.ID, f, code, printed.String())
			}
		}
	}

	if files := searchKey(t, key, home, exports); files < 9 { // the library and 8 exports
		t.Errorf("searched only %d files", files)
	}
	if strings.Contains(printed.String(), key) {
		t.Error("the API key was printed")
	}
}

func runQuiet(db string, out *bytes.Buffer, args ...string) int {
	var errb bytes.Buffer
	return run(append([]string{"--db", db}, args...), strings.NewReader(""), out, &errb)
}

// recordedRun returns a runner of the command on the library db and the
// buffer that keeps everything the runs print, out and errors alike.
func recordedRun(db string) (func(args ...string) int, *bytes.Buffer) {
	var printed bytes.Buffer
	return func(args ...string) int {
		var out, errb bytes.Buffer
		code := run(append([]string{"--db", db}, args...), strings.NewReader(""), &out, &errb)
		printed.Write(out.Bytes())
		printed.Write(errb.Bytes())
		return code
	}, &printed
}

// searchKey fails the test for every file under dirs that holds key, and
// returns how many files it read.
func searchKey(t *testing.T, key string, dirs ...string) int {
	t.Helper()
	files := 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			if bytes.Contains(b, []byte(key)) {
				t.Errorf("%s holds the API key", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestAPIKeyEchoedInAnswer: a server that echoes the Authorization header
// into its answers (streamed in small pieces, and whole) gets the key
// neither printed by ask, in text or JSON, nor saved in the library.
func TestAPIKeyEchoedInAnswer(t *testing.T) {
	const key = "sk-citelens-echo-5b1e0c9d7a2f4e68"
	srv := llmtest.New(t, llmtest.WithKey(key), llmtest.WithEchoAuthorization())
	srv.Enqueue(
		llmtest.Reply{Text: "<statement>Governments derive their just powers from the consent of the governed.<cite>[9-9]</cite></statement>", ChunkSize: 3},
		llmtest.Text("<statement>The consent of the governed.<cite>[9-9]</cite></statement>"),
	)
	home := modelEnv(t, srv, key, "")
	db := filepath.Join(home, "data", "citelens", "library.db")
	run, printed := recordedRun(db)
	if code := run("add", sample); code != 0 {
		t.Fatalf("add: status %d\n%s", code, printed.String())
	}
	if code := run("ask", "--strategy", "longcite", "What do governments derive their powers from?"); code != 0 {
		t.Fatalf("ask: status %d\n%s", code, printed.String())
	}
	if code := run("ask", "--json", "--raw", "--strategy", "longcite", "Whose consent?"); code != 0 {
		t.Fatalf("ask --json: status %d\n%s", code, printed.String())
	}
	if !strings.Contains(printed.String(), "Bearer [redacted]") {
		t.Fatalf("the server did not echo the key as scripted:\n%s", printed.String())
	}
	if strings.Contains(printed.String(), key) || strings.Contains(printed.String(), key[:20]) {
		t.Errorf("the API key was printed:\n%s", printed.String())
	}
	searchKey(t, key, home)
	searchKey(t, key[:20], home)
}
