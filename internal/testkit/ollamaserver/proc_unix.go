//go:build unix

package ollamaserver

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that the runner
// Ollama starts is stopped with it.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// terminate sends SIGTERM to cmd's process group.
func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// kill sends SIGKILL to cmd's process group.
func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
