package main

import (
	"embed"
	"strings"

	"github.com/spf13/cobra"
)

// helpFiles hold each command's long help and examples, one file per
// command: help/servecmp.txt for the root, help/NAME.txt for a command,
// help/PARENT-NAME.txt for a subcommand.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpFile is the name of c's help file.
func helpFile(c *cobra.Command) string {
	path := strings.Fields(c.CommandPath())
	if len(path) > 1 {
		path = path[1:]
	}
	return "help/" + strings.Join(path, "-") + ".txt"
}

// addHelp sets the Long and Example of c and its subcommands from their
// help files: the text before a line "Example:" is the long help, the
// lines after it the examples. A command without a file keeps what it
// has; a test requires a file for every command.
func addHelp(c *cobra.Command) {
	if b, err := helpFiles.ReadFile(helpFile(c)); err == nil {
		long, ex, _ := strings.Cut(string(b), "\nExample:\n")
		c.Long, c.Example = strings.TrimRight(long, "\n"), strings.TrimRight(ex, "\n")
	}
	for _, sub := range c.Commands() {
		addHelp(sub)
	}
}
