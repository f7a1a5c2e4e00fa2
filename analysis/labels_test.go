package analysis

import (
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/event"
)

// capture is a capture of format f from path with one rank per
// (pid, device) pair and, when rank != "", a captured rank.
func capture(f event.Format, path, rank string, pidDev ...[2]int64) *event.Capture {
	c := &event.Capture{Path: path, Format: f}
	if rank != "" {
		c.CapturedRank, c.CapturedRankFrom = rank, "env:RANK"
	}
	for _, pd := range pidDev {
		c.Ranks = append(c.Ranks, &event.Rank{Source: path, Format: f, PID: pd[0], Device: int32(pd[1])})
	}
	return c
}

// TestLabelRanks: the label policy for one file.
func TestLabelRanks(t *testing.T) {
	for _, tc := range []struct {
		name string
		user string
		c    *event.Capture
		want []string // label/from per rank
	}{
		{"captured rank", "", capture(event.NSys, "/d/a.sqlite", "3", [2]int64{9, 1}), []string{"3/env:RANK"}},
		{"no captured rank", "", capture(event.NSys, "/d/a.sqlite", "", [2]int64{9, 1}), []string{"a.sqlite:9/1/default"}},
		{"several ranks ignore the captured one", "", capture(event.NSys, "/d/a.sqlite", "3", [2]int64{100, 0}, [2]int64{200, 0}),
			[]string{"a.sqlite:100/0/default", "a.sqlite:200/0/default"}},
		{"kineto default names the device only", "", capture(event.Kineto, "t.json", "", [2]int64{5, 5}, [2]int64{9, 9}),
			[]string{"t.json:5/default", "t.json:9/default"}},
		{"user label wins", "mine", capture(event.NSys, "a.sqlite", "3", [2]int64{9, 1}), []string{"mine/user"}},
		{"user label, several ranks", "tp", capture(event.NSys, "a.sqlite", "", [2]int64{100, 0}, [2]int64{200, 1}),
			[]string{"tp:100/0/user", "tp:200/1/user"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labelRanks(tc.user, tc.c)
			var got []string
			for _, rk := range tc.c.Ranks {
				got = append(got, rk.Label+"/"+rk.LabelFrom)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("labels %q, want %q", got, tc.want)
			}
		})
	}
}

// TestQualifyDuplicates: labels that collide across files are prefixed
// with the file name, with a warning, unless the user gave them.
func TestQualifyDuplicates(t *testing.T) {
	rs := func(label, from, source string) *classify.RankSummary {
		return &classify.RankSummary{Rank: label, LabelFrom: from, Source: source}
	}
	for _, tc := range []struct {
		name  string
		ranks []*classify.RankSummary
		want  []string
		warn  int
	}{
		{"distinct", []*classify.RankSummary{rs("0", "env:RANK", "/x/a.sqlite"), rs("1", "env:RANK", "/x/b.sqlite")}, []string{"0", "1"}, 0},
		{"env labels collide", []*classify.RankSummary{rs("0", "env:RANK", "/x/a.sqlite"), rs("0", "trace:distributedInfo.rank", "/y/b.json")},
			[]string{"a.sqlite:0", "b.json:0"}, 2},
		{"user label kept, the other qualified", []*classify.RankSummary{rs("0", FromUser, "/x/a.sqlite"), rs("0", "env:RANK", "/x/b.sqlite")},
			[]string{"0", "b.sqlite:0"}, 1},
		{"user duplicates left for NewReport", []*classify.RankSummary{rs("a", FromUser, "/x/a.sqlite"), rs("a", FromUser, "/x/b.sqlite")},
			[]string{"a", "a"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qualifyDuplicates(tc.ranks)
			var got []string
			warn := 0
			for _, r := range tc.ranks {
				got = append(got, r.Rank)
				for _, w := range r.Warnings {
					if strings.Contains(w, "is used by several inputs") {
						warn++
					}
				}
			}
			if !slices.Equal(got, tc.want) || warn != tc.warn {
				t.Errorf("labels %q with %d warnings, want %q with %d", got, warn, tc.want, tc.warn)
			}
		})
	}
}
