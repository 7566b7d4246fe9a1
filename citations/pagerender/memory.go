package pagerender

import (
	"github.com/tetratelabs/wazero/experimental"
)

// MemoryLimit bounds PDFium's WebAssembly memory, in bytes: a page that
// needs more fails (PDFium's allocation fails and the call traps) rather
// than growing the program toward the 4 GB a 32-bit module can address.
// A real page at MaxPixels needs well under half of it.
const MemoryLimit = 1 << 30

// memoryLimitPages is MemoryLimit in WebAssembly pages of 64 KiB.
const memoryLimitPages = MemoryLimit / 65536

// reservedMemory backs a module's linear memory with one slice made at
// its largest size up front. The Go runtime takes a large allocation
// straight from the system, so pages nobody touched cost no memory; and
// growing it is a reslice, where wazero's default grows by copying into
// a larger slice, holding old and new at once (the doubling that drove a
// bomb page past 6 GB).
type reservedMemory struct{ buf []byte }

// allocateReserved is the experimental.MemoryAllocator every instance's
// memory comes from.
var allocateReserved = experimental.MemoryAllocatorFunc(func(capBytes, maxBytes uint64) experimental.LinearMemory {
	maxBytes = min(maxBytes, MemoryLimit)
	return &reservedMemory{buf: make([]byte, min(capBytes, maxBytes), maxBytes)}
})

// Reallocate implements experimental.LinearMemory: nil past the limit,
// which the module sees as a failed memory.grow.
func (m *reservedMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		return nil
	}
	m.buf = m.buf[:size]
	return m.buf
}

// Free implements experimental.LinearMemory.
func (m *reservedMemory) Free() { m.buf = nil }
