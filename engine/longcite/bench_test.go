package longcite

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citelens/citelens/internal/config"

	"github.com/citelens/citelens/docstore"
	"github.com/citelens/citelens/engine"
	"github.com/citelens/citelens/engine/enginetest"
	"github.com/citelens/citelens/internal/textproc"
	"github.com/citelens/citelens/llm"
	"github.com/citelens/citelens/llm/llmtest"
)

// R's manuals, from Debian's r-doc-pdf.
const (
	rExts   = "/usr/share/R/doc/manual/R-exts.pdf"
	fullRef = "/usr/share/R/doc/manual/fullrefman.pdf"
)

// manualText writes the first maxTokens tokens (textproc.EstimateTokens)
// of an R manual, as pdftotext extracts it, cut at a paragraph.
func manualText(b *testing.B, pdf string, maxTokens int) string {
	b.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		b.Skip("pdftotext (poppler-utils) is not installed")
	}
	if _, err := os.Stat(pdf); err != nil {
		b.Skip(pdf + " (Debian's r-doc-pdf) is not installed")
	}
	out, err := exec.Command("pdftotext", pdf, "-").Output()
	if err != nil {
		b.Fatal(err)
	}
	text := string(out)
	lo, hi := 0, len(text)
	for lo < hi { // longest paragraph-cut prefix within 100k tokens
		mid := (lo + hi + 1) / 2
		if textproc.EstimateTokens(text[:mid]) <= maxTokens {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if cut := strings.LastIndex(text[:lo], "\n\n"); cut > 0 {
		lo = cut
	}
	return enginetest.WriteFile(b, "manual.txt", text[:lo])
}

// firstByteProxy forwards connections to an upstream server and records
// when the first byte of each arrives. The client under test opens one
// connection per request (no keep-alive), so a connection's first byte is
// its request's first byte.
type firstByteProxy struct {
	ln       net.Listener
	upstream string
	first    chan time.Time
	wg       sync.WaitGroup
}

func newFirstByteProxy(b *testing.B, upstream string) *firstByteProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	p := &firstByteProxy{ln: ln, upstream: upstream, first: make(chan time.Time, 1024)}
	go p.serve()
	b.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *firstByteProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer c.Close()
			buf := make([]byte, 64<<10)
			n, err := c.Read(buf)
			if n > 0 {
				p.first <- time.Now()
			}
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.upstream)
			if err != nil {
				return
			}
			defer up.Close()
			if _, err := up.Write(buf[:n]); err != nil {
				return
			}
			go func() { io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
			io.Copy(c, up)
		}()
	}
}

// BenchmarkQuestionToFirstByte measures, for the longcite strategy on a
// 100,000-token document, the time from the question to the first byte of
// the request reaching the server: loading the scope, fitting it to the
// context (ranking and trimming when it does not fit), numbering, building
// the prompt and encoding the request. The document is already in the
// library, as it is when a user asks.
//
//	context=128k: the default context; the whole document goes in the
//	              prompt (about 111k tokens with its sentence numbers)
//	context=32k:  the document is ranked against the question and its
//	              most relevant sentences kept
func BenchmarkQuestionToFirstByte(b *testing.B) {
	benchFirstByte(b, manualText(b, rExts, 100000), []int{config.DefaultContextWindow, 32000})
}

// BenchmarkQuestionToFirstByteMillion is the same for the R reference
// manual (2,400 pages, about a million tokens) in a 128k context.
func BenchmarkQuestionToFirstByteMillion(b *testing.B) {
	benchFirstByte(b, manualText(b, fullRef, 1<<30), []int{config.DefaultContextWindow})
}

func benchFirstByte(b *testing.B, path string, windows []int) {
	lib, docs := enginetest.Library(b, path)
	srv := llmtest.New(b)
	srv.Respond(func(llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Text("<statement>See section 1.1.<cite>[3-4]</cite></statement>")
	})
	host := strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://")
	proxy := newFirstByteProxy(b, host)
	b.Logf("document: %d bytes, %d sentences", len(docs[0].Text), len(docs[0].Sentences))
	for _, window := range windows {
		b.Run(fmt.Sprintf("context=%dk", window/1000), func(b *testing.B) {
			cfg := enginetest.Config(srv)
			cfg.BaseURL = "http://" + proxy.ln.Addr().String() + "/v1"
			cfg.ContextWindow = window
			env := enginetest.Env(b, lib, cfg, llm.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}))
			req := engine.Request{Question: "How do I register native routines for .Call in a package?", Docs: []docstore.DocID{docs[0].ID}}
			var total time.Duration
			var stages []string
			for b.Loop() {
				start := time.Now()
				stages = stages[:0]
				if _, err := engine.Run(context.Background(), env, mustNew(b, env), req, func(ev engine.Event) {
					if s, ok := ev.(engine.Stage); ok {
						stages = append(stages, string(s))
					}
				}); err != nil {
					b.Fatal(err)
				}
				select {
				case at := <-proxy.first:
					total += at.Sub(start)
				default:
					b.Fatal("the proxy saw no request")
				}
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-first-byte")
			b.Logf("stages: %q", stages)
		})
	}
}
