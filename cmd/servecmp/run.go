package main

import (
	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/flagopts"
)

func newRunCmd(e *env) *cobra.Command {
	var r flagopts.Run
	cmd := &cobra.Command{
		Use:   "run EXPERIMENT.yaml --out DIR",
		Short: "The whole method from one experiment file: check, sweeps, repeated runs, report",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return r.Run(c.Context(), e.stdout, e.stderr, args[0], version, commit)
		},
	}
	cmd.Flags().StringVar(&r.Out, "out", "", "output directory (required; made when missing; a new or empty directory, or an earlier run's)")
	cmd.Flags().StringVar(&r.APIKeyFile, "api-key-file", "", "file holding the API key sent to both engines (default: $OPENAI_API_KEY)")
	cmd.Flags().BoolVar(&r.Force, "force", false, "redo every step, even those done with unchanged inputs")
	return cmd
}
