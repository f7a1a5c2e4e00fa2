//go:build !unix

package proctree

// Launching engines needs a Unix system; elsewhere there is nothing to
// kill.

// KillAll does nothing: no program is launched on this system.
func KillAll() {}
