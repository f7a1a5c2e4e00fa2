//go:build unix && !linux

package proctree

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// tagged finds nothing without /proc: a tree is its process group.
func tagged(string) []int { return nil }

// alive reports whether the group has a member, zombies included.
func alive(pgid int, _ string) bool { return syscall.Kill(-pgid, 0) == nil }
