package cli

import (
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
)

// HelpFile is the name of c's help file: help/ROOT.txt for the root
// (help/servecmp.txt), help/NAME.txt for a command, help/PARENT-NAME.txt
// for a subcommand.
func HelpFile(c *cobra.Command) string {
	path := strings.Fields(c.CommandPath())
	if len(path) > 1 {
		path = path[1:]
	}
	return "help/" + strings.Join(path, "-") + ".txt"
}

// AddHelp sets the Long and Example of c and its subcommands from their
// help files in fsys (HelpFile): the text before a line "Example:" is the
// long help, the lines after it the examples. A command without a file
// keeps what it has.
func AddHelp(c *cobra.Command, fsys fs.FS) {
	if b, err := fs.ReadFile(fsys, HelpFile(c)); err == nil {
		long, ex, _ := strings.Cut(string(b), "\nExample:\n")
		c.Long, c.Example = strings.TrimRight(long, "\n"), strings.TrimRight(ex, "\n")
	}
	for _, sub := range c.Commands() {
		AddHelp(sub, fsys)
	}
}
