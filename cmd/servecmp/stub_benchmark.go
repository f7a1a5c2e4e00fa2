package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the command's owner replaces this file.
func newBenchmarkCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "benchmark", Hidden: true, RunE: func(*cobra.Command, []string) error { return errors.New("benchmark: not implemented") }}
}
