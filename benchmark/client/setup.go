package client

import (
	"fmt"
	"strings"

	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/internal/redact"
)

// SetupError is a problem found before any measured request that only a
// change of the invocation resolves: a model to name among several, a
// prompt form the engine cannot take. The CLI reports it as a usage
// error (exit 2); Msg is one line that says what to do.
type SetupError struct{ Msg string }

func (e *SetupError) Error() string { return e.Msg }

// ModelChoice is the model to send when none was given: the only one the
// server lists. With several listed it returns a *SetupError that names
// them (listed at most 8, then a count) and flag, the option that picks
// one; with none listed, "" and no error (the caller says why).
func (info *EngineInfo) ModelChoice(baseURL, flag string) (string, error) {
	switch n := len(info.Models); {
	case n == 0:
		return "", nil
	case n == 1:
		return info.Model, nil
	}
	shown := info.Models[:min(len(info.Models), 8)]
	list := strings.Join(shown, ", ")
	if more := len(info.Models) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return "", &SetupError{fmt.Sprintf("the server at %s serves %d models (%s) and none was chosen: name one with %s",
		redact.URL(baseURL), len(info.Models), list, flag)}
}

// TokenPromptError is the *SetupError of a workload of token-id prompts
// (n of them) meeting an engine that takes text only: the dialect's
// advice (engine.Dialect.TokenPromptAdvice, how says how to make a text
// workload), prefixed with where; nil when the engine takes them.
func TokenPromptError(where string, d engine.Dialect, n int, how string) error {
	adv := d.TokenPromptAdvice(n, how)
	if adv == "" {
		return nil
	}
	return &SetupError{where + adv}
}
