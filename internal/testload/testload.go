// Package testload scales the few time bounds tests keep (a command must
// end soon after SIGINT; a read must not wait for another process's
// extraction) by how busy the machine is, so a shared test machine does
// not fail them while a quiet one still holds them tight.
package testload

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// Scaled is d on a machine whose load leaves a core to each process, and
// d times the processes waiting for each core on a busier one (Linux's
// /proc/loadavg; d elsewhere), where work that takes d alone waits that
// much longer for its turn.
func Scaled(d time.Duration) time.Duration {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return d
	}
	var load float64
	if _, err := fmt.Sscan(string(raw), &load); err != nil {
		return d
	}
	return time.Duration(max(1, load/float64(runtime.NumCPU())) * float64(d))
}
