package analysis

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/servecmp/servecmp/input"
)

// ParseInputs reads analyze's arguments: PATH or LABEL=PATH. An argument
// that names an existing file is a path even when it holds '='. A
// directory stands for the exports and traces inside it; a labelled
// directory labels each of its files LABEL/<file name>. A missing path is
// kept: opening it names it in the error.
func ParseInputs(args []string) ([]Input, error) {
	var out []Input
	for _, a := range args {
		in := Input{Path: a}
		if l, p, ok := strings.Cut(a, "="); ok && l != "" && p != "" && !strings.ContainsRune(l, filepath.Separator) {
			if _, err := os.Stat(a); err != nil { // not a file whose name holds '='
				in = Input{Label: l, Path: p}
			}
		}
		st, err := os.Stat(in.Path)
		if err != nil || !st.IsDir() {
			out = append(out, in)
			continue
		}
		files, err := input.Expand([]string{in.Path})
		if err != nil {
			return nil, err
		}
		for _, fp := range files {
			sub := Input{Path: fp}
			if in.Label != "" {
				sub.Label = in.Label + "/" + filepath.Base(fp)
			}
			out = append(out, sub)
		}
	}
	return out, nil
}

// Paths returns the inputs' paths, in order.
func Paths(inputs []Input) []string {
	out := make([]string, len(inputs))
	for i, in := range inputs {
		out[i] = in.Path
	}
	return out
}
