//go:build !unix

package atomicfile

import "errors"

// Lock is not available without flock: servecmp run, its one user, needs
// a Unix system.
func (d *Dir) Lock(name string) (unlock func(), err error) {
	return nil, errors.New("locking a directory needs a Unix system")
}
