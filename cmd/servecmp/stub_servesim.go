package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the command's owner replaces this file.
func newServeSimCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "serve-sim", Hidden: true, RunE: func(*cobra.Command, []string) error { return errors.New("servesim: not implemented") }}
}
