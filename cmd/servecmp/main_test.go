package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// asMainEnv makes the test binary run as servecmp itself: `launch:
// "servecmp serve-sim ..."` re-executes it (RunOptions.Self), and the
// interrupt tests run `servecmp run` in a process of its own.
const asMainEnv = "SERVECMP_TEST_AS_MAIN"

// TestMain runs the tests with every output file they make servecmp
// write checked as it is written (outputs): each JSON and JSON Lines
// file against the schema it names, each CSV file's columns for numbers
// that load as numbers. A file that fails fails the run, named with the
// reason, after the tests.
func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main()
	}
	c := newOutputs()
	atomicfile.Written = c.add
	code := m.Run()
	atomicfile.Written = nil
	if errs := c.problemsList(); len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(os.Stderr, "FAIL: output written by a test:", e)
		}
		code = max(code, 1)
	}
	if testing.Verbose() {
		fmt.Fprintln(os.Stderr, c.summary())
	}
	os.Exit(code)
}
