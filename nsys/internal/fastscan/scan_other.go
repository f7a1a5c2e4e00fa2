//go:build !(cgo && (linux || darwin))

package fastscan

import "context"

// Available reports whether this build has the scanner.
const Available = false

// Scan fails with ErrUnavailable in this build.
func Scan(ctx context.Context, file, query string, args []int64, ncol int, fn func(vals []int64, nulls []uint32) error) error {
	return ErrUnavailable
}
