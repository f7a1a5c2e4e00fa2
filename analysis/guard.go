package analysis

import (
	"fmt"
	"strings"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

// summarizeGuarded is summarize run under guardRank: it runs on a
// goroutine of its own, beyond the command's recover.
func summarizeGuarded(c *event.Capture, rk *event.Rank, set *rules.Set, byName []classify.Label, opts Options, sem chan struct{}) (*classify.RankSummary, error) {
	return guardRank(rk, func() (*classify.RankSummary, error) { return summarize(c, rk, set, byName, opts, sem) })
}

// guardRank calls f and turns a panic in it (a bug met on some input)
// into an error naming the rank's file.
func guardRank(rk *event.Rank, f func() (*classify.RankSummary, error)) (rs *classify.RankSummary, err error) {
	defer func() {
		if p := recover(); p != nil {
			rs, err = nil, fmt.Errorf("%s: internal error while summarizing rank %s: %s", rk.Source, rk.Label,
				strings.Join(strings.Fields(fmt.Sprint(p)), " "))
		}
	}()
	return f()
}
