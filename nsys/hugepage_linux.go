package nsys

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel to back a large, not yet touched slice with
// transparent huge pages: filling a million-row buffer otherwise costs one
// page fault per 4 KiB. It is advice only; errors are ignored.
func adviseHuge[T any](s []T) {
	if len(s) == 0 {
		return
	}
	n := uintptr(len(s)) * unsafe.Sizeof(s[0])
	if n < 8<<20 {
		return
	}
	p := uintptr(unsafe.Pointer(&s[0]))
	const huge = 2 << 20
	start := (p + huge - 1) &^ (huge - 1)
	end := (p + n) &^ (huge - 1)
	if end <= start {
		return
	}
	base := unsafe.Add(unsafe.Pointer(&s[0]), start-p)
	_ = syscall.Madvise(unsafe.Slice((*byte)(base), end-start), syscall.MADV_HUGEPAGE)
}
