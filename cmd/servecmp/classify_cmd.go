package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/rules"
)

// addRulesFlags registers --rules and --rules-add on cmd; rules.Select
// turns their values into a rule set.
func addRulesFlags(cmd *cobra.Command, rulesFile, rulesAdd *string) {
	cmd.Flags().StringVar(rulesFile, "rules", "", "use the rule file `FILE` instead of the built-in rules")
	cmd.Flags().StringVar(rulesAdd, "rules-add", "", "put the rules of `FILE` ahead of the built-in (or --rules) rules")
}

func newClassifyCmd(e *env) *cobra.Command {
	var rulesFile, rulesAdd string
	var nvtx bool
	cmd := &cobra.Command{
		Use:   "classify [--rules FILE] [--rules-add FILE] [--nvtx] [NAME...]",
		Short: "Show which region and rule each kernel name (or NVTX text) gets",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := rules.Select(rulesFile, rulesAdd)
			if err != nil {
				return err
			}
			if len(args) > 0 {
				return classify.WriteNames(e.stdout, set, nvtx, args)
			}
			if err := classify.WriteLines(cmd.Context(), e.stdout, set, nvtx, cmd.InOrStdin()); err != nil {
				return fmt.Errorf("classify: reading standard input: %w", err)
			}
			return nil
		},
	}
	addRulesFlags(cmd, &rulesFile, &rulesAdd)
	cmd.Flags().BoolVar(&nvtx, "nvtx", false, "classify the inputs as NVTX/annotation/python-frame text with the nvtx rules")
	return cmd
}

func newRulesCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Check rule files and show the built-in rules",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("rules: give a subcommand: check or show")
		},
	}
	cmd.AddCommand(newRulesCheckCmd(e), newRulesShowCmd(e))
	return cmd
}

func newRulesCheckCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE...",
		Short: "Validate rule files, reporting every error with file:line",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return rules.CheckFiles(args, e.stdout, e.stderr)
		},
	}
}

func newRulesShowCmd(e *env) *cobra.Command {
	names := rules.DefaultNames()
	return &cobra.Command{
		Use:   "show [" + strings.Join(names, "|") + "]",
		Short: "Print the built-in rule files",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := rules.DefaultText(strings.Join(args, ""))
			if err != nil {
				return usagef("rules show: %v", err)
			}
			_, err = e.stdout.Write(data)
			return err
		},
	}
}
