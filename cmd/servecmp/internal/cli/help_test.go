package cli

import (
	"testing"
	"testing/fstest"

	"github.com/spf13/cobra"
)

func TestAddHelp(t *testing.T) {
	root := &cobra.Command{Use: "tool"}
	sub := &cobra.Command{Use: "sub"}
	leaf := &cobra.Command{Use: "leaf", Long: "kept"}
	bare := &cobra.Command{Use: "bare", Long: "own"}
	sub.AddCommand(leaf)
	root.AddCommand(sub, bare)
	fsys := fstest.MapFS{
		"help/tool.txt":     {Data: []byte("Root help.\n\n")},
		"help/sub.txt":      {Data: []byte("Sub help.\n\nExample:\n  tool sub\n  tool sub -x\n")},
		"help/sub-leaf.txt": {Data: []byte("Leaf help.\nExample:\n  tool sub leaf\n")},
	}
	AddHelp(root, fsys)
	for _, tc := range []struct {
		c             *cobra.Command
		file          string
		long, example string
	}{
		{root, "help/tool.txt", "Root help.", ""},
		{sub, "help/sub.txt", "Sub help.", "  tool sub\n  tool sub -x"},
		{leaf, "help/sub-leaf.txt", "Leaf help.", "  tool sub leaf"},
		{bare, "help/bare.txt", "own", ""},
	} {
		if got := HelpFile(tc.c); got != tc.file {
			t.Errorf("HelpFile(%s) = %q, want %q", tc.c.Name(), got, tc.file)
		}
		if tc.c.Long != tc.long || tc.c.Example != tc.example {
			t.Errorf("%s: Long %q, Example %q; want %q, %q", tc.c.Name(), tc.c.Long, tc.c.Example, tc.long, tc.example)
		}
	}
}
