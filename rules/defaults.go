package rules

import (
	"embed"
	"fmt"
	"sync"
)

//go:embed defaults/*.yaml
var defaultFS embed.FS

// defaultOrder is the order in which the embedded files are concatenated:
// vendor kernel-name rules first, then NVTX/context rules. A file of this
// list that is not embedded is skipped; TestDefaultFilesListed makes sure
// no embedded file is left out.
var defaultOrder = []string{"nvidia.yaml", "rocm.yaml", "context.yaml"}

// File is one embedded default rule file.
type File struct {
	Name string // e.g. "nvidia.yaml"
	Path string // how rules from it name their file, e.g. "embedded:defaults/nvidia.yaml"
	Data []byte
}

// DefaultFiles returns the embedded default rule files in concatenation
// order. Each one is a valid rule file on its own.
func DefaultFiles() []File {
	var out []File
	for _, name := range defaultOrder {
		data, err := defaultFS.ReadFile("defaults/" + name)
		if err != nil {
			continue
		}
		out = append(out, File{Name: name, Path: "embedded:defaults/" + name, Data: data})
	}
	return out
}

// loadDefaults parses every embedded file and checks ids across them.
func loadDefaults() (*Set, error) {
	var all []Rule
	seen := map[string]Rule{}
	for _, f := range DefaultFiles() {
		rs, err := parseRules(f.Data, f.Path) // one Set of them all, below
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if first, dup := seen[r.ID]; dup {
				return nil, &SyntaxError{File: r.File, Line: r.Line,
					Msg: fmt.Sprintf("duplicate id %q (first at %s:%d)", r.ID, first.File, first.Line)}
			}
			seen[r.ID] = r
		}
		all = append(all, rs...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("rules: no embedded default rules")
	}
	return newSet(all), nil
}

var defaults = sync.OnceValues(loadDefaults)

// Default returns the embedded default rules. The returned Set is a fresh
// copy the caller may keep; its compiled patterns are shared. The embedded
// files are checked by the package tests, so Default panics only on a build
// that skipped them.
func Default() *Set {
	s, err := defaults()
	if err != nil {
		panic("rules: invalid embedded default rules: " + err.Error())
	}
	return &Set{Rules: append([]Rule(nil), s.Rules...), Digest: s.Digest, pre: s.pre}
}
