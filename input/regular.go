package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/servecmp/servecmp/internal/infile"
)

// openRegular opens path with infile.Open (which never blocks on a named
// pipe) and words its errors as this package does.
func openRegular(path string) (*os.File, error) {
	f, err := infile.Open(path)
	if err == nil {
		return f, nil
	}
	if errors.Is(err, infile.ErrNotRegular) {
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			return nil, fmt.Errorf("input: %s: is a directory", path)
		}
		var pe *fs.PathError
		errors.As(err, &pe)
		return nil, &Error{Path: path, Msg: "not a regular file: " + pe.Err.Error(), Err: err}
	}
	return nil, fileErr(path, err)
}
