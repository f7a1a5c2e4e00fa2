// Package flagopts turns servecmp's command-line flags into the values the
// packages below the CLI take: a benchmark's configuration and output
// paths (Bench, Outputs), the workload commands' output settings (Output),
// the pre-flight check's job (CheckJob) and the API key. It is the one
// place below cmd/servecmp that knows flag names and which flags were
// given (cobra's Flags().Changed, handed in as Changed).
//
// A wrong flag or flag combination is a *cli.UsageError (exit 2) whose
// message names the flag (--rate, --out, ...); a file that cannot be read
// is an ordinary error naming the file (exit 1).
package flagopts
