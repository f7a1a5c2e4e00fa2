package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the command's owner replaces this file.
func newMergeCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "merge", Hidden: true, RunE: func(*cobra.Command, []string) error { return errors.New("merge: not implemented") }}
}
