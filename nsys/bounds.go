package nsys

// This file holds the checks on values read from an export: every number
// that sizes a buffer or enters the event model is checked where it is
// read, and rows that fail are dropped and counted, never converted.

import (
	"database/sql/driver"
	"fmt"
	"math"
	"strings"

	"github.com/servecmp/servecmp/event"
)

// rowSpan returns the number of row ids in [lo, hi] of table, computed
// without overflow; a reversed range or one wider than maxRowSpan is
// refused (the reader sizes its buffers by it).
func rowSpan(table string, lo, hi int64) (int, error) {
	if hi < lo || uint64(hi)-uint64(lo) >= maxRowSpan {
		return 0, fmt.Errorf("reading %s: implausible row ids %d..%d", table, lo, hi)
	}
	return int(hi-lo) + 1, nil
}

// dropReason says why a device-work row was dropped.
type dropReason uint8

const (
	dropTimes    dropReason = iota // NULL or not an integer, end < start, or both 0
	dropNegative                   // start < 0
	dropRange                      // end beyond event.MaxTime, or longer than event.MaxDur
	dropIDs                        // device, stream or process id, or launch shape, unusable
	nDropReasons
)

// dropWords are the warning words of each reason, after "dropped N kernels".
var dropWords = [nDropReasons]string{
	dropTimes:    "with invalid timestamps (NULL, end < start, or both 0)",
	dropNegative: "with a negative start time",
	dropRange:    fmt.Sprintf("with times beyond %d ns or lasting more than %d ns", event.MaxTime, event.MaxDur),
	dropIDs:      "with an invalid device id, stream id, process id or launch shape (NULL, not an integer, or out of range)",
}

// Columns of a device-work row as workQuery selects them.
const (
	colStart = iota
	colEnd
	colDevice
	colStream
	colGlobalPid
	colName
	colCorrelation
	colGraphNode
	colGrid // gridX..Z, then blockX..Z (kernels only)
)

// checkWork tells whether the scanned device-work row v (with its NULL
// mask) can enter the event model, and why not. Bit i of null is also
// set for a value that is not an integer (see fastscan).
func checkWork(v []int64, null uint32, kernel bool) (dropReason, bool) {
	start, end := v[colStart], v[colEnd]
	const ids = 1<<colDevice | 1<<colStream | 1<<colGlobalPid
	switch {
	case null&(1<<colStart|1<<colEnd) != 0 || end < start || (start == 0 && end == 0):
		return dropTimes, false
	case start < 0:
		return dropNegative, false
	case end > event.MaxTime || end-start > event.MaxDur:
		return dropRange, false
	case null&ids != 0 || !in32(v[colDevice]) || v[colStream] < 0 || v[colStream] > math.MaxUint32:
		return dropIDs, false
	}
	if kernel {
		for _, x := range v[colGrid : colGrid+6] {
			if !in32(x) {
				return dropIDs, false
			}
		}
	}
	return 0, true
}

// in32 reports whether x is a non-negative int32.
func in32(x int64) bool { return x >= 0 && x <= math.MaxInt32 }

// dropWarnings returns the warnings for the rows dropped per kind.
func dropWarnings(dropped map[event.Kind]*[nDropReasons]int) []string {
	var out []string
	for _, k := range []event.Kind{event.Kernel, event.Memcpy, event.Memset} {
		d := dropped[k]
		if d == nil {
			continue
		}
		for why, n := range d {
			if n > 0 {
				out = append(out, fmt.Sprintf("dropped %d %ss %s", n, k, dropWords[why]))
			}
		}
	}
	return out
}

// i64 reads an integer column; ok is false for NULL and for any value
// that is not an integer (text, blob), and for a real that is not a
// whole number within int64.
func i64(v driver.Value) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// strictInt reads an integer column for intScan: NULL and every other
// type (text, blob, real) are not integers, as in fastscan.
func strictInt(v driver.Value) (int64, bool) {
	x, ok := v.(int64)
	return x, ok
}

// guard calls f and turns a panic in it into an error, so that a bug met
// on some hostile file fails that file's read instead of the process
// (f may run on a goroutine of its own, beyond any caller's recover).
func guard(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %s", strings.Join(strings.Fields(fmt.Sprint(p)), " "))
		}
	}()
	return f()
}
