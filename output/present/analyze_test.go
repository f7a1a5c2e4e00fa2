package present

import (
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/output/table"
)

func report(t *testing.T, ranks ...*classify.RankSummary) *classify.Report {
	t.Helper()
	rep, err := classify.NewReport("d", ranks)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func find(ts []*table.Table, name string) *table.Table {
	for _, tb := range ts {
		if tb.Name == name {
			return tb
		}
	}
	return nil
}

// TestAnalysisPerWorkNote: the note explaining iteration-derived counts
// shows only when some rank's work came from iteration ranges, not from
// --work; without any work there is no per_work table.
func TestAnalysisPerWorkNote(t *testing.T) {
	for _, tc := range []struct {
		work     *classify.Work
		table    bool
		wantNote bool
	}{
		{&classify.Work{Requests: 2, OutputTokens: 10, From: "iterations"}, true, true},
		{&classify.Work{Requests: 4, OutputTokens: 100, From: "flag"}, true, false},
		{nil, false, false},
	} {
		s := &classify.RankSummary{Rank: "0", Regions: []classify.RegionSummary{{Region: "ffn", SumNs: 10, BusyNs: 10}}, Work: tc.work}
		pw := find(Analysis(report(t, s), 0), "per_work")
		if (pw != nil) != tc.table {
			t.Fatalf("work %+v: per_work table present %v", tc.work, pw != nil)
		}
		if pw == nil {
			continue
		}
		note := slices.ContainsFunc(pw.Notes, func(n string) bool { return strings.Contains(n, "ctx_reqs") })
		if note != tc.wantNote {
			t.Errorf("work %+v: iteration note %v, want %v", tc.work, note, tc.wantNote)
		}
	}
}

// TestAnalysisWindowFromSessionStart: the ranks table shows a kineto
// rank's window from the trace's first event (the clock --window uses),
// with a note; an nsys rank (clock from the session start) gets no note.
func TestAnalysisWindowFromSessionStart(t *testing.T) {
	const t0 = 1_428_625_731_516_983
	s := &classify.RankSummary{Rank: "0", WindowStartNs: t0 + 1e6, WindowEndNs: t0 + 3e6, WindowNs: 2e6, SessionStartNs: t0}
	ranks := Analysis(report(t, s), 0)[0]
	if ranks.Name != "ranks" || ranks.Rows[0][7] != int64(1e6) || ranks.Rows[0][8] != int64(3e6) || len(ranks.Notes) != 1 {
		t.Errorf("ranks table: row %v, notes %q", ranks.Rows[0], ranks.Notes)
	}
	n := &classify.RankSummary{Rank: "0", WindowStartNs: 1e6, WindowEndNs: 3e6, WindowNs: 2e6}
	if notes := Analysis(report(t, n), 0)[0].Notes; len(notes) != 0 {
		t.Errorf("nsys notes %q", notes)
	}
}

// TestAnalysisTop: top caps the unmapped names per rank; 0 keeps all.
func TestAnalysisTop(t *testing.T) {
	s := &classify.RankSummary{Rank: "0", UnmappedTop: []classify.NameStat{{Name: "a", SumNs: 3}, {Name: "b", SumNs: 2}, {Name: "c", SumNs: 1}}}
	for top, want := range map[int]int{0: 3, 2: 2, 5: 3} {
		un := find(Analysis(report(t, s), top), "unmapped_top")
		if un == nil || len(un.Rows) != want {
			t.Errorf("top %d: %v", top, un)
		}
	}
	if find(Analysis(report(t, &classify.RankSummary{Rank: "1"}), 0), "unmapped_top") != nil {
		t.Error("empty unmapped table shown")
	}
}
