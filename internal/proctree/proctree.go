//go:build unix

// Package proctree starts the programs servecmp launches (engines named
// by an experiment's launch:) so that none outlives servecmp, and stops a
// program together with every process it started.
//
// A launched program is one tree: its own process group, plus every
// descendant, even one that left the group (setsid, a daemon's double
// fork). Membership is marked, not inferred: the program starts with an
// environment variable (TagEnv) holding a tag of its own, which its
// descendants inherit; on Linux the members are the processes of the
// group and those whose environment carries the tag (read from /proc, for
// processes of the same user). Signal reaches them all.
//
// What ends a tree:
//
//   - Stop (experiment's Process.Stop): SIGTERM to every member, SIGKILL
//     to those left after the grace period;
//   - KillAll, which servecmp's main calls on the third Ctrl-C before it
//     exits: SIGKILL to every member of every tree still registered;
//   - the death of servecmp itself, even by SIGKILL, on Linux: the program
//     is started with a parent-death signal (SIGKILL), so the kernel ends
//     it when servecmp ends.
//
// What remains possible: after a SIGKILL of servecmp, the kernel's
// parent-death signal reaches only the program servecmp started; its own
// children end only if the program ends them (most engines do, and a
// group member whose parent is gone is adopted by init). On systems other
// than Linux there is no parent-death signal and no /proc: a tree is its
// process group only, and a SIGKILL of servecmp leaves the program
// running.
package proctree

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// TagEnv is the environment variable that marks a launched program's
// processes.
const TagEnv = "SERVECMP_LAUNCH_TAG"

// Tree is one launched program and the processes it starts.
type Tree struct {
	tag  string
	pgid int
}

var (
	mu    sync.Mutex
	trees = map[*Tree]bool{}
)

// Prepare readies cmd before its Start: its own process group, the
// parent-death signal (Linux), and the tag in its environment.
func Prepare(cmd *exec.Cmd) *Tree {
	var b [12]byte
	_, _ = rand.Read(b[:])
	t := &Tree{tag: hex.EncodeToString(b[:])}
	cmd.SysProcAttr = sysProcAttr()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, TagEnv+"="+t.tag)
	return t
}

// Started registers the tree of cmd, which has just started, so that
// KillAll reaches it.
func (t *Tree) Started(cmd *exec.Cmd) {
	t.pgid = cmd.Process.Pid
	mu.Lock()
	trees[t] = true
	mu.Unlock()
}

// Done unregisters the tree once it is stopped.
func (t *Tree) Done() {
	mu.Lock()
	delete(trees, t)
	mu.Unlock()
}

// Signal sends sig to the tree's process group and to every process
// carrying its tag outside the group. It returns an error only when the
// group could not be signalled for a reason other than being gone.
func (t *Tree) Signal(sig syscall.Signal) error {
	err := syscall.Kill(-t.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		err = nil
	}
	for _, pid := range tagged(t.tag) {
		_ = syscall.Kill(pid, sig)
	}
	return err
}

// Alive reports whether a member of the tree is alive: a process of the
// group or a tagged one. On Linux a zombie (dead, not yet reaped by a
// parent that may never reap it) is not alive; elsewhere the group counts
// until every member is reaped.
func (t *Tree) Alive() bool { return alive(t.pgid, t.tag) }

// KillAll sends SIGKILL to every member of every registered tree: the
// last resort before servecmp exits on a third Ctrl-C.
func KillAll() {
	mu.Lock()
	defer mu.Unlock()
	for t := range trees {
		_ = t.Signal(syscall.SIGKILL)
	}
}
