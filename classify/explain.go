package classify

import (
	"cmp"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
	"github.com/servecmp/servecmp/rules"
)

// ExplainEntry is one group of a rank's device work with the same name,
// region, method and deciding rule: enough for a reader to audit where any
// number of the summary came from. It is the one explain row type, kept in
// RankSummary.Explain (analyze --explain).
type ExplainEntry struct {
	Name   string `json:"name"`   // kernel / memcpy / memset name
	Region string `json:"region"` // final region
	Method string `json:"method"` // how the region was decided
	// Rule is the id of the deciding rule: the name rule for ByName and
	// ByPosition (the rule that said what the work is), the nvtx rule for
	// ByNVTX and ByGraph, the name rule that flagged an unplaced ambiguous
	// kernel for Unmapped; "" when no rule matched.
	Rule  string `json:"rule"`
	Count int    `json:"count"`  // pieces of work
	SumNs int64  `json:"sum_ns"` // summed duration, ns (overlaps are not merged)
}

// Explain groups a rank's work by (name, region, method, rule) with its
// labels (from Attribute, same index as rank.Work). Rows are sorted by
// SumNs descending, then name, region and method (in their own order, not
// by spelling), then rule id.
func Explain(rank *event.Rank, set *rules.Set, labels []Label) []ExplainEntry {
	type key struct {
		name   uint32
		region rules.Region
		method Method
		rule   int32
	}
	type group struct {
		k key
		e ExplainEntry
	}
	idx := map[key]int{}
	var rows []group
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
			rows = append(rows, group{k, ExplainEntry{Name: nameOf(rank, w.Name), Region: l.Region.String(),
				Method: l.Method.String(), Rule: ruleID(set, l.Rule)}})
		}
		rows[j].e.Count++
		rows[j].e.SumNs += w.Dur()
	}
	slices.SortFunc(rows, func(a, b group) int {
		return cmp.Or(cmp.Compare(b.e.SumNs, a.e.SumNs), strings.Compare(a.e.Name, b.e.Name),
			cmp.Compare(a.k.region, b.k.region), cmp.Compare(a.k.method, b.k.method), strings.Compare(a.e.Rule, b.e.Rule))
	})
	out := make([]ExplainEntry, len(rows))
	for i, g := range rows {
		out[i] = g.e
	}
	return out
}

func nameOf(rank *event.Rank, id uint32) string {
	if rank.Names == nil {
		return ""
	}
	return rank.Names.Name(id)
}

func ruleID(set *rules.Set, rule int32) string {
	if set == nil || rule < 0 || int(rule) >= len(set.Rules) {
		return ""
	}
	return set.Rules[rule].ID
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
	return Explain(&in, set, lab)
}
