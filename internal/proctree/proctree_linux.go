//go:build linux

package proctree

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr {
	// Pdeathsig: the kernel kills the program when servecmp's thread that
	// started it ends (Go keeps its threads for the process's life).
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// tagged lists the processes, other than this one, whose environment
// carries TagEnv=tag (a zombie's environment reads empty).
func tagged(tag string) []int {
	var out []int
	scan(func(pid int, dir string) {
		if hasTag(dir, tag) {
			out = append(out, pid)
		}
	})
	return out
}

// alive reports whether a process of group pgid, or one carrying tag, is
// alive and not a zombie.
func alive(pgid int, tag string) bool {
	found := false
	scan(func(pid int, dir string) {
		if found {
			return
		}
		state, pgrp, ok := stat(dir)
		found = ok && state != 'Z' && state != 'X' && (pgrp == pgid || hasTag(dir, tag))
	})
	return found
}

// scan calls f for every process but this one.
func scan(f func(pid int, dir string)) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	self := os.Getpid()
	for _, d := range dirs {
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && pid != self {
			f(pid, d)
		}
	}
}

func hasTag(dir, tag string) bool {
	env, err := os.ReadFile(filepath.Join(dir, "environ"))
	want := []byte("\x00" + TagEnv + "=" + tag + "\x00")
	return err == nil && bytes.Contains(append(append([]byte{0}, env...), 0), want)
}

// stat reads a process's state and process group from /proc/PID/stat.
func stat(dir string) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0, 0, false
	}
	return parseStat(b)
}

// parseStat reads the state and process group of a /proc/PID/stat line.
func parseStat(b []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(b, ')') // the command name may hold anything
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:]) // state, ppid, pgrp, ...
	if len(f) < 3 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	return f[0][0], pgrp, err == nil
}
