package classify

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Work is the work a rank completed within its window.
type Work struct {
	Requests     int64  `json:"requests"`
	OutputTokens int64  `json:"output_tokens"`
	InputTokens  int64  `json:"input_tokens"`
	From         string `json:"from"` // "flag" (--work) or "iterations"
}

// ParseWork parses "requests=N,output_tokens=M,input_tokens=K" (any subset,
// any order, at least one key).
func ParseWork(s string) (*Work, error) {
	w := &Work{}
	if s == "" {
		return nil, errors.New("empty work")
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("work %q: want key=value", kv)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("work %q: value must be a non-negative integer", kv)
		}
		if seen[k] {
			return nil, fmt.Errorf("work: %s given twice", k)
		}
		seen[k] = true
		switch k {
		case "requests":
			w.Requests = n
		case "output_tokens":
			w.OutputTokens = n
		case "input_tokens":
			w.InputTokens = n
		default:
			return nil, fmt.Errorf("work: unknown key %q (want requests, output_tokens, input_tokens)", k)
		}
	}
	return w, nil
}
