//go:build !race

package chat

// timeScale stretches the time bounds of the budget tests (see
// race_on_test.go).
const timeScale = 1
