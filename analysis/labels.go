package analysis

import (
	"fmt"
	"path/filepath"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/event"
)

// Label sources (event.Rank.LabelFrom, classify.RankSummary.LabelFrom)
// decided here; a captured rank's source is the reader's CapturedRankFrom.
const (
	FromUser    = "user"
	FromDefault = "default"
)

// labelRanks gives every rank of c its display label, in this order:
//
//  1. the user's label (LABEL=FILE): LABEL when the file holds one rank,
//     LABEL:<pid>/<device> for each rank when it holds several;
//  2. the rank the capture records (c.CapturedRank, from the captured
//     environment or the trace's distributedInfo), when the file holds
//     one rank: with several it cannot say which is which;
//  3. a default from the file name: <file>:<pid>/<device> for an nsys
//     export, <file>:<device> for a kineto trace (whose pid is the device
//     index, so adds nothing).
//
// Labels of different files may still collide; qualifyDuplicates settles
// that once every file is read.
func labelRanks(user string, c *event.Capture) {
	one := len(c.Ranks) == 1
	for _, rk := range c.Ranks {
		switch {
		case user != "" && one:
			rk.Label, rk.LabelFrom = user, FromUser
		case user != "":
			rk.Label, rk.LabelFrom = fmt.Sprintf("%s:%d/%d", user, rk.PID, rk.Device), FromUser
		case one && c.CapturedRank != "":
			rk.Label, rk.LabelFrom = c.CapturedRank, c.CapturedRankFrom
		default:
			rk.Label, rk.LabelFrom = defaultLabel(rk), FromDefault
		}
	}
}

// defaultLabel names a rank by its file, pid and device.
func defaultLabel(rk *event.Rank) string {
	base := filepath.Base(rk.Source)
	if rk.Format == event.Kineto {
		return fmt.Sprintf("%s:%d", base, rk.Device)
	}
	return fmt.Sprintf("%s:%d/%d", base, rk.PID, rk.Device)
}

// qualifyDuplicates prefixes the file name to rank labels that came from
// captured ranks or defaults and collide across files (two single-GPU
// traces both recorded as rank 0, say), with a warning. Labels the user
// gave are left alone, so that classify.NewReport refuses their
// duplicates.
func qualifyDuplicates(ranks []*classify.RankSummary) {
	seen := map[string]int{}
	for _, r := range ranks {
		seen[r.Rank]++
	}
	for _, r := range ranks {
		if seen[r.Rank] < 2 || r.LabelFrom == FromUser {
			continue
		}
		old := r.Rank
		r.Rank = filepath.Base(r.Source) + ":" + old
		r.Warnings = append(r.Warnings, fmt.Sprintf("rank label %q is used by several inputs; %s's is shown as %q (give LABEL=FILE to choose)", old, r.Source, r.Rank))
	}
}
