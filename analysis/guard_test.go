package analysis

import (
	"errors"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/event"
)

// TestGuardRank checks that a panic while summarizing a rank becomes an
// error naming the file instead of ending the process, and that a plain
// error passes through.
func TestGuardRank(t *testing.T) {
	rk := &event.Rank{Source: "x.sqlite", Label: "0"}
	_, err := guardRank(rk, func() (*classify.RankSummary, error) {
		var s []int
		_ = s[3]
		return nil, nil
	})
	if err == nil || !strings.Contains(err.Error(), "x.sqlite: internal error") || strings.Contains(err.Error(), "\n") {
		t.Errorf("guardRank = %v, want a one-line internal error naming the file", err)
	}
	plain := errors.New("plain")
	if _, err := guardRank(rk, func() (*classify.RankSummary, error) { return nil, plain }); err != plain {
		t.Errorf("guardRank = %v, want the function's error", err)
	}
}
