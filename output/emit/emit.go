// Package emit writes what servecmp's commands produce, on the output
// tree's top: a finished run's result file, text summary and warnings,
// marking the outcomes a pipeline gates on (ErrNotComparable,
// ErrTooManyFailures; result.go), and the files of a comparison report:
// workbook, plots, HTML page, report.txt (report.go).
//
// It imports output/present and the report renderers (output/xlsx,
// output/plots, output/html); nothing below the output tree imports it,
// and the CLI turns its outcomes into exit codes. Data goes to stdout,
// progress ("wrote FILE") and warnings to stderr, warnings last. Errors
// name the file or flag they concern.
package emit

import (
	"errors"
	"fmt"
	"io"

	"github.com/servecmp/servecmp/internal/redact"
	"github.com/servecmp/servecmp/output/table"
)

// Warn prints warnings to w (stderr), one line each under the one
// warning prefix, scrubbed of credentials. Commands call it after
// writing their data.
func Warn(w io.Writer, warnings ...string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "servecmp: warning: %s\n", table.Escape(redact.Text(s)))
	}
}

// Outcomes a pipeline gates on: an error of a command's outcome matches
// one of them (errors.Is) when the CLI is to give it an exit status of its
// own (cmd/servecmp/internal/cli: 3 and 4).
var (
	// ErrNotComparable: a complete comparison report says NOT COMPARABLE.
	ErrNotComparable = errors.New("not comparable")
	// ErrTooManyFailures: more requests failed than the run allows.
	ErrTooManyFailures = errors.New("too many failed requests")
)

// outcome is err marked with the outcome kind, one of the Err values
// above; its message is err's alone.
type outcome struct{ err, kind error }

func (o *outcome) Error() string   { return o.err.Error() }
func (o *outcome) Unwrap() []error { return []error{o.err, o.kind} }
