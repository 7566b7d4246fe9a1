package docstore

import "syscall"

// limitMemory caps the process's address space at n bytes, so that an
// allocation without bound fails it rather than the machine.
func limitMemory(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
}
