//go:build unix

package split

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user and system CPU time, so benchmarks
// can report throughput per CPU second, which a busy shared machine
// disturbs far less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
