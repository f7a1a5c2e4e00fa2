package cli

import "github.com/spf13/cobra"

// groups order the top-level help: the one command that carries out the
// whole method first, then the steps of question 1, then question 2.
// Commands keep the order they were added in within their group.
var groups = []struct {
	id, title string
	commands  []string
}{
	{"method", "The whole method from one experiment file (start here):", []string{"run"}},
	{"speed", "Question 1, which system is faster, step by step:", []string{"workload", "tokenize", "check", "benchmark", "compare", "serve-sim"}},
	{"gpu", "Question 2, where the GPU time goes (diagnostic only):", []string{"profile", "analyze", "merge", "classify", "rules"}},
}

// AddGroups sorts root's commands into the help's groups; a command in
// no group is listed under "Additional Commands" as cobra does.
func AddGroups(root *cobra.Command) {
	cobra.EnableCommandSorting = false
	for _, g := range groups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, name := range g.commands {
			for _, c := range root.Commands() {
				if c.Name() == name {
					c.GroupID = g.id
				}
			}
		}
	}
}
