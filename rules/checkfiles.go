package rules

import (
	"fmt"
	"io"
	"strings"
)

// CheckFiles loads each rule file of paths and reports on it: a line
// "PATH: N rules OK (X name, Y nvtx)" to ok for a valid file, every
// problem of an invalid one as "file:line: message" lines to problems.
// The error, when any file is invalid, counts the problems and the files.
func CheckFiles(paths []string, ok, problems io.Writer) error {
	bad, nerr := 0, 0
	for _, path := range paths {
		set, err := Load(path)
		if err != nil {
			bad++
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintln(problems, line)
				nerr++
			}
			continue
		}
		n, v := set.Counts()
		fmt.Fprintf(ok, "%s: %d rules OK (%d name, %d nvtx)\n", path, len(set.Rules), n, v)
	}
	if bad > 0 {
		return fmt.Errorf("rules check: %d error(s) in %d of %d file(s)", nerr, bad, len(paths))
	}
	return nil
}
