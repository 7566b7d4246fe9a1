package docstore

import (
	"bytes"
	"os"
	"strconv"
)

// processStart is when process pid started, in the kernel's clock ticks
// since boot (field 22 of /proc/pid/stat), 0 when it cannot be read (no
// such process, or no /proc). With the process ID it names one process
// for the machine's life: an ID used again by a later process has
// another start.
func processStart(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command's name, in parentheses, may hold spaces and
	// parentheses: the fields that follow come after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	const starttime = 22 - 3 // fields counted from the state, the third
	if len(f) <= starttime {
		return 0
	}
	n, err := strconv.ParseUint(string(f[starttime]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
