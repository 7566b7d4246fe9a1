//go:build !unix

package split

import "time"

// cpuTime is unavailable here; benchmarks then omit their CPU metric.
func cpuTime() time.Duration { return 0 }
