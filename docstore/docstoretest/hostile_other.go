//go:build !unix

package docstoretest

import "testing"

// FIFO skips the test: there are no FIFOs here.
func FIFO(t testing.TB, path string) { t.Skip("no FIFOs on this system") }

// NotRegularFiles skips the test: there are no FIFOs or /dev/zero here.
func NotRegularFiles(t testing.TB) (fifo, devZero string) {
	t.Skip("no FIFOs or /dev/zero on this system")
	return "", ""
}
