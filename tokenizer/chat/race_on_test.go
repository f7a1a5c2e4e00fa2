//go:build race

package chat

// timeScale stretches the time bounds of the budget tests: the race
// detector runs the interpreter several times slower.
const timeScale = 10
