package split

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// refmanPDF is R's full reference manual (Debian's r-doc-pdf): 2,415 pages,
// about 4.4 MB of text, an ordinary "large document" for citelens.
const refmanPDF = "/usr/share/R/doc/manual/fullrefman.pdf"

var (
	benchOnce sync.Once
	benchText string
	benchName string
)

// largeText returns a large real text: the reference manual as extracted by
// poppler's pdftotext (cached in the temp directory, since extraction takes
// about 20 s), or else the HotpotQA document repeated to a similar size.
func largeText(b *testing.B) (string, string) {
	benchOnce.Do(func() {
		if st, err := os.Stat(refmanPDF); err == nil {
			if pdftotext, err := exec.LookPath("pdftotext"); err == nil {
				cache := filepath.Join(os.TempDir(), fmt.Sprintf("citelens-split-refman-%d-%d.txt", st.Size(), st.ModTime().Unix()))
				if _, err := os.Stat(cache); err != nil {
					tmp := cache + ".tmp"
					if err := exec.Command(pdftotext, "-q", refmanPDF, tmp).Run(); err == nil {
						_ = os.Rename(tmp, cache)
					}
				}
				if raw, err := os.ReadFile(cache); err == nil {
					benchText, benchName = string(raw), "fullrefman.pdf via pdftotext"
					return
				}
			}
		}
		dir := os.Getenv("CITELENS_HOTPOTQA")
		if dir == "" {
			dir = filepath.Join("..", "..", "..", "shared", "data", "hotpotqa53")
		}
		if raw, err := os.ReadFile(filepath.Join(dir, "docs", "hotpotqa53.txt")); err == nil {
			benchText = strings.Repeat(string(raw), 14)
			benchName = "hotpotqa53.txt ×14"
		}
	})
	if benchText == "" {
		b.Skip("no large text: install poppler-utils and r-doc-pdf, or set CITELENS_HOTPOTQA")
	}
	return benchText, benchName
}

// BenchmarkSentences reports MB/s for splitting a 4.4 MB document.
func BenchmarkSentences(b *testing.B) {
	text, name := largeText(b)
	b.Logf("%s: %d bytes, %d sentences", name, len(text), len(Sentences(text)))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		Sentences(text)
	}
	reportCPU(b, cpu0, len(text))
}

// reportCPU reports MB per CPU second since cpu0 as "cpuMB/s".
func reportCPU(b *testing.B, cpu0 time.Duration, size int) {
	if d := cpuTime() - cpu0; cpu0 > 0 && d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/d.Seconds()/1e6, "cpuMB/s")
	}
}

// BenchmarkChunks reports MB/s for chunking the same document at 128 tokens.
func BenchmarkChunks(b *testing.B) {
	text, _ := largeText(b)
	sents := Sentences(text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		Chunks(text, sents, ChunkOptions{})
	}
	reportCPU(b, cpu0, len(text))
}
