//go:build !linux

package nsys

// adviseHuge does nothing outside Linux (no transparent huge pages).
func adviseHuge[T any](s []T) {}
