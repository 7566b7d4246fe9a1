//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citelens/citelens/ingest/doctest"
)

// hostileAdds are files that once made `add` run for minutes where no
// Ctrl-C reached it, built here: a web page of 100,000 nested divs, an
// e-book chapter of 300,000, and an e-book whose spine lists one 1 MB
// chapter 20,000 times. Hostile PDFs (a cross-reference section that
// names itself as the previous one, which made the PDF library loop
// forever) are TestInterruptPDFAdd's.
func hostileAdds(t *testing.T, dir string) []string {
	t.Helper()
	big := strings.Repeat("<p>A paragraph of the only chapter, read again and again.</p>", 1<<20/60)
	book := doctest.EPUB("Amplified", doctest.Chapter{Title: "One", Body: big})
	book = doctest.Rezip(book, map[string][]byte{"OEBPS/content.opf": []byte(`<package><metadata><title>A</title></metadata><manifest>` +
		`<item id="ch1" href="text/part01.xhtml" media-type="application/xhtml+xml"/></manifest><spine>` +
		strings.Repeat(`<itemref idref="ch1"/>`, 20_000) + `</spine></package>`)})

	files := map[string][]byte{
		"deep.html":      []byte(strings.Repeat("<div>", 100_000) + "text" + strings.Repeat("</div>", 100_000)),
		"deep.epub":      doctest.EPUB("Deep", doctest.Chapter{Title: "Deep", Body: strings.Repeat("<div>", 300_000)}),
		"amplified.epub": book,
	}
	var paths []string
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestInterruptHostileAdds: one SIGINT during the add of each hostile
// file ends the command within a second (signalLimit), with nothing of it written,
// whether the file is still being read (the PDF library inside its loop)
// or was already refused.
func TestInterruptHostileAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := filepath.Dir(bin)
	for i, file := range hostileAdds(t, dir) {
		name := filepath.Base(file)
		db := filepath.Join(dir, fmt.Sprintf("library%d.db", i))
		cmd, errb, done := startAdd(t, bin, db, file)
		time.Sleep(100 * time.Millisecond) // the loader gets stuck
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			took := time.Since(sent)
			noCrash(t, name, errb.String())
			if err == nil || took > signalLimit() {
				t.Errorf("%s: after SIGINT the add ended in %s with %v\n%s", name, took.Round(time.Millisecond), err, errb.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: the add still runs 10 s after SIGINT", name)
		}
		if out, err := exec.Command(bin, "--db", db, "ls").CombinedOutput(); strings.Contains(string(out), name) {
			t.Errorf("%s was added: %v\n%s", name, err, out)
		}
	}
}
