package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/rules"
	"github.com/spf13/cobra"
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
			w := bufio.NewWriter(e.stdout)
			emit := func(name string) {
				region, id := set.Lookup(name, nvtx)
				fmt.Fprintf(w, "%s\t%s\t%s\n", region, id, name)
			}
			if len(args) > 0 {
				for _, a := range args {
					emit(a)
				}
				return w.Flush()
			}
			ctx := cmd.Context()
			if err := eachLine(cmd.InOrStdin(), func(line string) error {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if line != "" {
					emit(line)
				}
				return nil
			}); err != nil {
				w.Flush()
				return fmt.Errorf("classify: reading standard input: %w", err)
			}
			return w.Flush()
		},
	}
	addRulesFlags(cmd, &rulesFile, &rulesAdd)
	cmd.Flags().BoolVar(&nvtx, "nvtx", false, "classify the inputs as NVTX/annotation/python-frame text with the nvtx rules")
	return cmd
}

// eachLine calls fn for every line of r without its line ending. Lines may
// be long (demangled CUTLASS names run to kilobytes).
func eachLine(r io.Reader, fn func(string) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
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
			bad, nerr := 0, 0
			for _, path := range args {
				set, err := rules.Load(path)
				if err != nil {
					bad++
					for _, line := range strings.Split(err.Error(), "\n") {
						fmt.Fprintln(e.stderr, line)
						nerr++
					}
					continue
				}
				n, v := set.Counts()
				fmt.Fprintf(e.stdout, "%s: %d rules OK (%d name, %d nvtx)\n", path, len(set.Rules), n, v)
			}
			if bad > 0 {
				return fmt.Errorf("rules check: %d error(s) in %d of %d file(s)", nerr, bad, len(args))
			}
			return nil
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
