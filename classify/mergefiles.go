package classify

import (
	"fmt"
	"slices"
)

// Merger folds reports into one, one report at a time, so that merging
// saved summaries of many ranks never holds more than one input besides
// what the result keeps. Its result is Merge's (the same laws: one rule
// set, labels unique, ranks in natural order, cross-rank figures and
// notes recomputed over all ranks, warnings the deduplicated union),
// except that with Keep > 0 each rank keeps only the lists a report
// trimmed to the top Keep shows: the result then equals
// Merge(inputs...).Trim(Keep) in every figure.
//
// Memory: what the result keeps is, per rank, its scalar counters, one
// entry per region and per method, its iteration histogram (at most 64
// buckets), its warnings and explain rows, and its unmapped names and
// shapes: at most Keep names and Keep shapes per region with Keep > 0,
// all of them otherwise. Report-level warnings are kept once each. An
// input is dropped once folded, so the peak is that plus one input.
type Merger struct {
	// Keep is how many unmapped names, and shapes per region, each rank
	// keeps (<= 0: all, as a saved summary needs).
	Keep int

	n      int
	schema string
	digest string
	ranks  []*RankSummary
	labels map[string]string // label → source, for an early duplicate error
	warns  map[string]struct{}
}

// Add folds r into the merge. r's ranks are kept (trimmed copies with
// Keep > 0); r must not be modified afterwards.
func (m *Merger) Add(r *Report) error {
	if m.n == 0 {
		m.schema, m.digest = r.Schema, r.RulesDigest
		m.labels, m.warns = map[string]string{}, map[string]struct{}{}
	}
	m.n++
	if r.RulesDigest != m.digest {
		return fmt.Errorf("merge: summaries were made with different rules (digest %s vs %s)", short(m.digest), short(r.RulesDigest))
	}
	if r.Schema == "" {
		m.schema = ""
	}
	for _, s := range r.Ranks {
		if src, dup := m.labels[s.Rank]; dup {
			return fmt.Errorf("duplicate rank label %q (%s and %s); give each input a distinct LABEL=", s.Rank, src, s.Source)
		}
		m.labels[s.Rank] = s.Source
		if m.Keep > 0 {
			s = trimmed(s, m.Keep, true)
		}
		m.ranks = append(m.ranks, s)
	}
	for _, w := range r.Warnings {
		m.warns[w] = struct{}{}
	}
	return nil
}

// Report returns the merged report of everything added.
func (m *Merger) Report() (*Report, error) {
	if m.n == 0 {
		return nil, fmt.Errorf("merge: no summaries")
	}
	out := &Report{Schema: m.schema, RulesDigest: m.digest, Ranks: slices.Clone(m.ranks)}
	if err := out.finish(); err != nil {
		return nil, err
	}
	for w := range m.warns {
		out.Warnings = append(out.Warnings, w)
	}
	out.Warnings = dedupe(out.Warnings)
	return out, nil
}

// MergeFiles reads the summaries saved at paths (ReadSummaryFile) one at
// a time and folds each into one report (Merger, keeping keep entries
// per list; <= 0 keeps all). Its errors name the file.
func MergeFiles(paths []string, keep int) (*Report, error) {
	m := &Merger{Keep: keep}
	for _, p := range paths {
		r, err := ReadSummaryFile(p)
		if err != nil {
			return nil, err
		}
		if err := m.Add(r); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
	}
	return m.Report()
}
