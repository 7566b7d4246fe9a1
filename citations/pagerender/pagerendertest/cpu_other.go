//go:build !unix

package pagerendertest

import (
	"testing"
	"time"
)

// CPUTime is 0 here: the system gives no process CPU time.
func CPUTime() time.Duration { return 0 }

// ReportCPU reports nothing here.
func ReportCPU(b *testing.B, start time.Duration) {}

// ChildCPUTime is 0 here.
func ChildCPUTime() time.Duration { return 0 }

// ReportChildCPU reports nothing here.
func ReportChildCPU(b *testing.B, start time.Duration) {}
