package main

import (
	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/flagopts"
	"github.com/servecmp/servecmp/tokenizer/tokenize"
)

func newTokenizeCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tokenize --tokenizer FILE [TEXT...]",
		Short: "Encode text (or a JSONL field, or a rendered chat) and print ids, count and pieces",
	}
	o := flagopts.Tokenize(cmd.Flags())
	cmd.RunE = func(c *cobra.Command, args []string) error {
		o.Texts = args
		if err := o.Validate(); err != nil {
			return usagef("%v", err)
		}
		return tokenize.Run(c.Context(), *o, e.stdout)
	}
	return cmd
}
