package classify

import (
	"cmp"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
	"github.com/servecmp/servecmp/rules"
)

// ExplainRow is one group of a rank's device work with the same name,
// region, method and deciding rule: enough for a reader to audit where any
// number of the summary came from.
type ExplainRow struct {
	Name   string       // kernel / memcpy / memset name
	Region rules.Region // final region
	Method Method       // how the region was decided
	// RuleID is the id of the deciding rule: the name rule for ByName and
	// ByPosition (the rule that said what the work is), the nvtx rule for
	// ByNVTX and ByGraph, the name rule that flagged an unplaced ambiguous
	// kernel for Unmapped; "" when no rule matched.
	RuleID string
	Count  int   // pieces of work
	SumNs  int64 // summed duration, ns (overlaps are not merged)
}

// Explain groups a rank's work by (name, region, method, rule) with its
// labels (from Attribute, same index as rank.Work). Rows are sorted by
// SumNs descending, then name, region and method.
func Explain(rank *event.Rank, set *rules.Set, labels []Label) []ExplainRow {
	type key struct {
		name   uint32
		region rules.Region
		method Method
		rule   int32
	}
	idx := map[key]int{}
	var rows []ExplainRow
	for i := range rank.Work {
		if i >= len(labels) {
			break
		}
		w := &rank.Work[i]
		l := labels[i]
		k := key{w.Name, l.Region, l.Method, l.Rule}
		j, ok := idx[k]
		if !ok {
			j = len(rows)
			idx[k] = j
			id := ""
			if set != nil && l.Rule >= 0 && int(l.Rule) < len(set.Rules) {
				id = set.Rules[l.Rule].ID
			}
			name := ""
			if rank.Names != nil {
				name = rank.Names.Name(w.Name)
			}
			rows = append(rows, ExplainRow{Name: name, Region: l.Region, Method: l.Method, RuleID: id})
		}
		rows[j].Count++
		rows[j].SumNs += w.Dur()
	}
	slices.SortFunc(rows, func(a, b ExplainRow) int {
		if c := cmp.Compare(b.SumNs, a.SumNs); c != 0 {
			return c
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Region, b.Region); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Method, b.Method); c != 0 {
			return c
		}
		return strings.Compare(a.RuleID, b.RuleID)
	})
	return rows
}

// ExplainWindow is Explain restricted to the work inside [start, end), with
// durations clipped to it, in report form.
func ExplainWindow(rank *event.Rank, set *rules.Set, labels []Label, start, end int64) []ExplainEntry {
	in := *rank
	in.Work = make([]event.Work, 0, len(rank.Work))
	lab := make([]Label, 0, len(labels))
	for i := range rank.Work {
		if i >= len(labels) {
			break
		}
		w := rank.Work[i]
		iv, inside := interval.ClipWork(w.Start, w.End, interval.Interval{Start: start, End: end})
		if !inside {
			continue
		}
		w.Start, w.End = iv.Start, iv.End
		in.Work = append(in.Work, w)
		lab = append(lab, labels[i])
	}
	rows := Explain(&in, set, lab)
	out := make([]ExplainEntry, len(rows))
	for i, r := range rows {
		out[i] = ExplainEntry{Name: r.Name, Region: r.Region.String(), Method: r.Method.String(), Rule: r.RuleID, Count: r.Count, SumNs: r.SumNs}
	}
	return out
}
