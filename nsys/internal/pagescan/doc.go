// Package pagescan reads the rows of an SQLite rowid table straight from
// the table's b-tree pages in the database file, in pure Go, several
// times faster than SQLite's own scan (no virtual machine, no per-column
// calls; integer columns are decoded where they lie).
//
// It reads what SQLite reads for "SELECT cols FROM t WHERE rowid BETWEEN
// lo AND hi" on a file opened read-only and immutable: the same rows in
// the same (rowid) order with the same values, as long as the caller
// keeps to the columns Eligible accepts (none whose declared type makes
// SQLite or the Go driver convert values on the way out, no INTEGER
// PRIMARY KEY, generated or defaulted column, a UTF-8 file). Any page,
// cell or record that is not what a well-formed database holds stops the
// scan with an error wrapping ErrMalformed, possibly after some batches
// were delivered: a caller then drops what it got and reads the table
// through SQLite, which decides what such a file means.
//
// Bounds: page numbers are checked against the file's page count, the
// tree depth against SQLite's limit (20), the pages one scan visits
// against the page count (so a cycle ends the scan), every cell and
// record against its page and payload, overflow chains against the
// payload they carry. Each scan opens its own read-only handle on the
// file (one goroutine uses it) and holds a read buffer of maxRun pages,
// one page per tree level, the last cacheSlots record headers it met
// and the rows of one batch.
//
// Units: rowids and integer values are int64 as stored; text is the
// file's UTF-8 bytes.
package pagescan

import "errors"

// ErrMalformed is wrapped by the errors of a scan that met something a
// well-formed database does not hold, or that this package does not read
// (a WITHOUT ROWID table, a UTF-16 file).
var ErrMalformed = errors.New("pagescan: not a well-formed rowid table")

// BatchRows is the most rows one call of a Scan's function receives.
const BatchRows = 2048
