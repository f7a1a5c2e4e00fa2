package rules

import (
	"bytes"
	"fmt"
	"strings"
)

// Select returns the rule set a command runs with: the built-in defaults,
// or the rules of file instead when file is not "", with the rules of add
// (when not "") ahead of them. Errors name the file and line.
func Select(file, add string) (*Set, error) {
	set := Default()
	if file != "" {
		s, err := Load(file)
		if err != nil {
			return nil, err
		}
		set = s
	}
	if add != "" {
		front, err := Load(add)
		if err != nil {
			return nil, err
		}
		set = set.Prepend(front)
	}
	return set, nil
}

// Lookup classifies one text by name alone: with nvtx false a kernel,
// memcpy or memset name against the name rules, else an NVTX, annotation
// or python-frame text against the nvtx rules. It returns the region and
// the id of the first matching rule, or Other and "-" when none matches.
func (s *Set) Lookup(text string, nvtx bool) (Region, string) {
	match := s.MatchName
	if nvtx {
		match = s.MatchNVTX
	}
	if i := match(text); i >= 0 {
		return s.Rules[i].Region, s.Rules[i].ID
	}
	return Other, "-"
}

// DefaultNames returns the names of the built-in rule files without
// their .yaml suffix, in concatenation order.
func DefaultNames() []string {
	var names []string
	for _, f := range DefaultFiles() {
		names = append(names, strings.TrimSuffix(f.Name, ".yaml"))
	}
	return names
}

// DefaultText returns the built-in rule file called name (with or without
// .yaml) as it is embedded; with name "" it returns all of them in the
// order they apply, each preceded by a comment line naming it, as one
// valid rule file equal to the defaults.
func DefaultText(name string) ([]byte, error) {
	files := DefaultFiles()
	if name != "" {
		want := strings.TrimSuffix(name, ".yaml")
		for _, f := range files {
			if strings.TrimSuffix(f.Name, ".yaml") == want {
				return f.Data, nil
			}
		}
		return nil, fmt.Errorf("no built-in rule file %q (have %s)", name, strings.Join(DefaultNames(), ", "))
	}
	var b bytes.Buffer
	for i, f := range files {
		data := f.Data
		if i > 0 {
			b.WriteByte('\n')
			data = continueRulesList(data)
		}
		fmt.Fprintf(&b, "# ==> %s <==\n", f.Path)
		b.Write(data)
	}
	return b.Bytes(), nil
}

// continueRulesList turns a rule file's top-level "rules:" line into a
// comment, so that its list items continue the list of a file printed
// before it.
func continueRulesList(data []byte) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if strings.TrimRight(l, " \r\n") == "rules:" {
			lines[i] = "# rules: (continued)\n"
			break
		}
	}
	return []byte(strings.Join(lines, ""))
}
