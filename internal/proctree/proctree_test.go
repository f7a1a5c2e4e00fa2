//go:build linux

package proctree

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the launched program: with modeEnv set it
// runs one of the modes of helper.
const modeEnv = "SERVECMP_PROCTREE_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(modeEnv); mode != "" {
		helper(mode, os.Args[1:])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helper modes:
//
//	escape PIDFILE: start a child in a session of its own (setsid) that
//	    writes its pid to PIDFILE and sleeps; then sleep.
//	sleep PIDFILE: write the pid, sleep.
//	middle PIDFILE: launch "escape PIDFILE" through Prepare, then sleep
//	    (the test SIGKILLs this process: servecmp dying).
func helper(mode string, args []string) {
	switch mode {
	case "escape":
		c := exec.Command(os.Args[0], args[0])
		c.Env = append(os.Environ(), modeEnv+"=sleep")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		_ = c.Start()
	case "sleep":
		_ = os.WriteFile(args[0], []byte(strconv.Itoa(os.Getpid())), 0o644)
	case "middle":
		c := exec.Command(os.Args[0], args[0])
		c.Env = append(os.Environ(), modeEnv+"=escape")
		t := Prepare(c)
		_ = c.Start()
		t.Started(c)
		_ = os.WriteFile(args[0]+".leader", []byte(strconv.Itoa(c.Process.Pid)), 0o644)
	}
	time.Sleep(time.Minute)
}

func waitPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			pid, _ := strconv.Atoi(string(b))
			return pid
		}
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// running reports whether pid is alive and not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b[bytes.LastIndexByte(b, ')')+1:])
	st := strings.TrimSpace(s)
	return st != "" && st[0] != 'Z' && st[0] != 'X'
}

func gone(t *testing.T, pids ...int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		left := 0
		for _, p := range pids {
			if running(p) {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v: %d still running", pids, left)
		}
	}
}

func launch(t *testing.T, mode string, args ...string) (*exec.Cmd, *Tree) {
	t.Helper()
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), modeEnv+"="+mode)
	tr := Prepare(c)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	tr.Started(c)
	go c.Wait()
	t.Cleanup(func() { _ = tr.Signal(syscall.SIGKILL); tr.Done() })
	return c, tr
}

// TestSignalReachesSetsidChild: a descendant that left the process group
// and the session (setsid) is still a member, and is killed with it.
func TestSignalReachesSetsidChild(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	c, tr := launch(t, "escape", pidFile)
	child := waitPid(t, pidFile)
	if pgid, _ := syscall.Getpgid(child); pgid == c.Process.Pid {
		t.Fatal("the child did not leave the group")
	}
	if !tr.Alive() {
		t.Fatal("tree not alive")
	}
	if err := tr.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	gone(t, c.Process.Pid, child)
	for deadline := time.Now().Add(5 * time.Second); tr.Alive(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("tree still alive")
		}
	}
}

// TestKillAll: the last resort reaches every registered tree.
func TestKillAll(t *testing.T) {
	pa, pb := filepath.Join(t.TempDir(), "a.pid"), filepath.Join(t.TempDir(), "b.pid")
	ca, _ := launch(t, "escape", pa)
	cb, _ := launch(t, "sleep", pb)
	a, b := waitPid(t, pa), waitPid(t, pb)
	KillAll()
	gone(t, ca.Process.Pid, cb.Process.Pid, a, b)
}

// TestParentDeath: when the process that launched a program is killed
// (SIGKILL: no cleanup runs), the kernel kills the program it started.
func TestParentDeath(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	mid := exec.Command(os.Args[0], pidFile)
	mid.Env = append(os.Environ(), modeEnv+"=middle")
	if err := mid.Start(); err != nil {
		t.Fatal(err)
	}
	leader := waitPid(t, pidFile+".leader")
	child := waitPid(t, pidFile)
	if !running(leader) {
		t.Fatal("the launched program is not running")
	}
	_ = mid.Process.Kill()
	_ = mid.Wait()
	gone(t, leader)
	// The setsid grandchild is outside the kernel's reach (see the package
	// comment); end it here.
	_ = syscall.Kill(child, syscall.SIGKILL)
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		line  string
		state byte
		pgrp  int
		ok    bool
	}{
		{"123 (vllm) S 1 123 123 0", 'S', 123, true},
		{"9 (a) b) c) Z 1 77 77", 'Z', 77, true},
		{"9 (x)", 0, 0, false},
		{"garbage", 0, 0, false},
	} {
		st, pg, ok := parseStat([]byte(tc.line))
		if st != tc.state || pg != tc.pgrp || ok != tc.ok {
			t.Errorf("%q: %c %d %v", tc.line, st, pg, ok)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("123 (vllm) S 1 123 123 0"))
	f.Fuzz(func(t *testing.T, b []byte) { parseStat(b) })
}
