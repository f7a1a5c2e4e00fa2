// Package sqliteuri writes the "file:" URI SQLite opens a database by,
// for the two openers of an export (package input through the driver, and
// nsys's fast scan through the C API), so both escape a path alike.
package sqliteuri

import (
	"fmt"
	"path/filepath"
	"strings"
)

// File returns "file:" and the absolute path of path, with '%', '?', '#'
// (which end or escape URI parts) and control bytes percent-escaped; the
// caller appends its query ("?mode=ro&..."). A NUL byte cannot be passed.
func File(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if strings.IndexByte(abs, 0) >= 0 {
		return "", fmt.Errorf("file name %q holds a NUL byte", path)
	}
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(abs); i++ {
		c := abs[i]
		if c == '%' || c == '?' || c == '#' || c < 0x20 || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}
