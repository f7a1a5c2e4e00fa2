// Package fastscan copies all-integer SQLite query results out in batches
// through the SQLite C API, at close to SQLite's own scan speed.
//
// Each Scan opens its own handle on the file: read-only, immutable (no
// locks, no journal, nothing written beside the file), without a mutex
// (one goroutine uses it), and closes it at the end. Nothing reaches into
// another package's connections.
//
// Values are int64; a NULL, and any value that is not an integer (text,
// blob, real: SQLite columns hold any type), reads 0 with its bit set in
// the row's NULL mask (bit i for column i, so at most 32 columns): a
// value is never converted. Rows come row-major,
// up to BatchRows per call of fn.
//
// The scanner is built with cgo on Linux and macOS; it calls the SQLite
// library that github.com/mattn/go-sqlite3 compiles in, which this package
// imports for that reason. Elsewhere Available is false and Scan fails:
// callers read through database/sql instead.
package fastscan

import "errors"

// BatchRows is the most rows one call of fn receives.
const BatchRows = 2048

// ErrUnavailable is returned by Scan in builds without the scanner.
var ErrUnavailable = errors.New("fastscan: not built in (needs cgo on Linux or macOS)")
