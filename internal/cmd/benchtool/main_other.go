//go:build !unix

// Command benchtool runs servecmp's end-to-end benchmarks on Unix systems
// (it reads resource usage and file limits the Unix way).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "benchtool: runs on Unix systems only")
	os.Exit(1)
}
