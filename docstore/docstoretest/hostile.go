// Package docstoretest makes the hostile files the add pipeline (ingest) must refuse,
// for the tests of docstore and of the commands that add files.
package docstoretest

import (
	"testing"
	"time"
)

// Within runs fn and fails the test if it has not returned after 30
// seconds: for what used to block forever (reading a FIFO, /dev/zero).
func Within(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still blocked after 30 s", what)
	}
}
