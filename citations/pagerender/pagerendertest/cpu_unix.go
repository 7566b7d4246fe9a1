//go:build unix

package pagerendertest

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the process's CPU time so far (user and system), or 0 where
// the system does not say.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ChildCPUTime is the CPU time of the process's waited-for children so
// far (a reference program run by a benchmark), or 0.
func ChildCPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportChildCPU is ReportCPU for the children's CPU time since start.
func ReportChildCPU(b *testing.B, start time.Duration) {
	if d := ChildCPUTime() - start; d > 0 {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// ReportCPU adds a cpu-ms/op metric to b from the CPU time spent since
// start: on a machine shared with other work, wall time measures the
// queue as much as the code, CPU time the code.
func ReportCPU(b *testing.B, start time.Duration) {
	if d := CPUTime() - start; start > 0 && d > 0 {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}
