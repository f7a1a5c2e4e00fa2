//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Lock takes the lock file name in the directory for as long as the
// process holds it (an advisory flock, released by unlock or by the
// process's end, even a SIGKILL): a second taker is refused at once with
// an error naming the holder's pid. The file is left in place; its
// content is the holder's pid.
func (d *Dir) Lock(name string) (unlock func(), err error) {
	rel, err := d.rel(name)
	if err != nil {
		return nil, err
	}
	if err := d.tell(rel, false); err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(rel, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK, Perm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Join(name), unwrapPath(err))
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file; cannot lock", d.Join(name))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := make([]byte, 32)
		n, _ := f.ReadAt(holder, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := "another process"
			if pid := strings.TrimSpace(string(holder[:n])); pid != "" {
				who = "process " + pid
			}
			return nil, fmt.Errorf("%s is in use by %s (another servecmp run on the same directory)", d.Path(), who)
		}
		return nil, fmt.Errorf("%s: lock: %w", d.Join(name), err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
