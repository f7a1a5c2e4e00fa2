//go:build !unix

package main

import "errors"

// mkfifo fails where the system has no named pipes; tests that need one skip.
func mkfifo(string) error { return errors.New("no named pipes on this system") }
