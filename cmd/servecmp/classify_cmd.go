package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

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
		Long: `classify prints, for each kernel, memcpy or memset name, the region the
name rules give it and the id of the rule that matched:

  region<TAB>rule-id<TAB>name

A name that no rule matches prints as "other<TAB>-<TAB>name". Names come
from the arguments, or from standard input, one per line, when there are
none. With --nvtx the inputs are NVTX range, annotation or python-frame
texts and are matched against the nvtx rules instead.

This is name-only classification: GEMMs, norms, quantisation and other
kernels whose rule has an ambiguous class keep that rule's region here;
'servecmp analyze' may place them by context.`,
		Example: `  servecmp classify 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)'
  sqlite3 run.sqlite 'SELECT DISTINCT value FROM StringIds' | servecmp classify
  servecmp classify --nvtx "{'Module': 'model.layers.0.self_attn.qkv_proj'}"`,
		Args: cobra.ArbitraryArgs,
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
			if err := eachLine(cmd.Context(), cmd.InOrStdin(), func(line string) error {
				if line != "" {
					emit(line)
				}
				return nil
			}); err != nil {
				if !errors.Is(err, context.Canceled) {
					w.Flush()
				}
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
// be long (demangled CUTLASS names run to kilobytes). It returns ctx's
// error as soon as ctx is cancelled, even while a read is blocked (a
// terminal or an idle pipe); fn is then no longer called, and the reading
// goroutine ends with the process or the next line.
func eachLine(ctx context.Context, r io.Reader, fn func(string) error) error {
	done := make(chan error, 1)
	var stopped atomic.Bool
	go func() {
		done <- readLines(r, func(line string) error {
			if stopped.Load() {
				return context.Canceled
			}
			return fn(line)
		})
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		stopped.Store(true)
		return ctx.Err()
	}
}

// readLines calls fn for every line of r without its line ending.
func readLines(r io.Reader, fn func(string) error) error {
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
		Long: `Rule files map kernel names and NVTX texts to regions (attention, ffn,
communication, io, other). A file holds one YAML mapping with a "rules"
list; each rule has an id, a region, an optional class and exactly one of
pattern (RE2, matched against kernel/memcpy/memset names) or nvtx (RE2,
matched against NVTX range, annotation and python-frame text). Rules are
tried in order and the first match wins.

Use 'servecmp rules show' to print the built-in rules as a starting point,
and --rules-add FILE (analyze, classify) to put your rules ahead of them.`,
		Args: cobra.NoArgs,
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
		Long: `check parses each FILE and prints "FILE: N rules OK" to standard output,
or every problem found as "file:line: message" to standard error. The exit
status is 1 when any file has an error.`,
		Args: cobra.MinimumNArgs(1),
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
		Long: `show prints the built-in rule files in the order they are applied, each
preceded by a comment line naming it; together they form one valid rule
file equal to the defaults. Given a name, it prints that file alone, which
is a valid rule file to copy and edit:

  servecmp rules show nvidia > my-rules.yaml`,
		Args: cobra.MaximumNArgs(1),
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
