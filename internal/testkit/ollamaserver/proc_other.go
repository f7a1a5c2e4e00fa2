//go:build !unix

package ollamaserver

import "os/exec"

// ownGroup does nothing where process groups are not Unix's: the server
// alone is stopped.
func ownGroup(*exec.Cmd) {}

// terminate stops the server (no SIGTERM here: it is killed).
func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// kill stops the server.
func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
