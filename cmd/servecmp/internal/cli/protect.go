package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// Protect calls f and returns its exit code; a panic in f (a bug, never
// an expected outcome) becomes one line on stderr and exit code 1, with
// no stack trace. SERVECMP_TRACEBACK=1 in the environment adds the stack
// for a bug report.
func Protect(stderr io.Writer, f func() int) (code int) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		msg := strings.Join(strings.Fields(fmt.Sprint(p)), " ")
		fmt.Fprintf(stderr, "servecmp: internal error: %s (this is a bug; please report it with the command line)\n", msg)
		if tracebackWanted() {
			stderr.Write(debug.Stack())
		}
		code = 1
	}()
	return f()
}

func tracebackWanted() bool { return os.Getenv("SERVECMP_TRACEBACK") == "1" }
