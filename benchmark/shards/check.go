package shards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// DefaultMaxSkew is the largest spread of the shards' starts merge
// accepts unless told otherwise: in a run of tens of seconds, load
// missing for a tenth of a second at the start moves the throughput by
// well under a percent.
const DefaultMaxSkew = 100 * time.Millisecond

// check refuses inputs that are not the complete shards of one sharded
// run. It sorts in by shard index.
func check(in []Input) error {
	sort.SliceStable(in, func(a, b int) bool { return in[a].Result.Shard.Index < in[b].Result.Shard.Index })
	first := in[0]
	n := first.Result.Shard.Count
	for _, x := range in {
		if err := sameRun(&first, &x); err != nil {
			return err
		}
	}
	for i, x := range in {
		if k := x.Result.Shard.Index; i > 0 && k == in[i-1].Result.Shard.Index {
			return fmt.Errorf("shard %d/%d given twice (%s and %s): give each shard once", k, n, in[i-1].Path, x.Path)
		}
	}
	var missing []int
	have := map[int]bool{}
	for _, x := range in {
		have[x.Result.Shard.Index] = true
	}
	for k := range n {
		if !have[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		more := ""
		if len(missing) > 8 {
			missing, more = missing[:8], fmt.Sprintf(" and %d more", len(missing)-8)
		}
		return fmt.Errorf("shards %v%s of %d are missing (given: %d): a merge needs every shard of the run", missing, more, n, len(in))
	}
	sum := 0
	for _, x := range in {
		sum += x.Result.Shard.Requests
		if err := checkRecords(&x); err != nil {
			return err
		}
	}
	if sum != first.Result.Workload.Count {
		return fmt.Errorf("the shards hold %d requests, the workload %d: they were not split from this workload alike (different servecmp versions?)", sum, first.Result.Workload.Count)
	}
	return disjoint(in)
}

// sameRun refuses a shard x that is not of first's sharded run, or was
// measured differently.
func sameRun(first, x *Input) error {
	a, b := first.Result, x.Result
	where := fmt.Sprintf("%s and %s", first.Path, x.Path)
	switch {
	case a.Shard.Count != b.Shard.Count:
		return fmt.Errorf("%s: shards of %d and of %d: not one sharded run", where, a.Shard.Count, b.Shard.Count)
	case a.Shard.Group != b.Shard.Group:
		return fmt.Errorf("%s: shard groups %s and %s: not one sharded run", where, a.Shard.Group, b.Shard.Group)
	case !a.Shard.StartAt.Equal(b.Shard.StartAt):
		return fmt.Errorf("%s: start instants %s and %s: not one sharded run", where, a.Shard.StartAt.Format(time.RFC3339Nano), b.Shard.StartAt.Format(time.RFC3339Nano))
	case a.Workload.SHA256 != b.Workload.SHA256 || a.Workload.Count != b.Workload.Count:
		return fmt.Errorf("%s: different workloads (sha256 %.12s, %d requests and %.12s, %d requests)", where, a.Workload.SHA256, a.Workload.Count, b.Workload.SHA256, b.Workload.Count)
	case a.Sweep != nil || b.Sweep != nil:
		return fmt.Errorf("%s: a sweep cannot be merged as shards", where)
	}
	if f := differs(settings(a), settings(b)); f != "" {
		return fmt.Errorf("%s: different settings (%s): shards of one run are measured alike", where, f)
	}
	return nil
}

// settings are the parts of a shard's result that every shard of a run
// shares: the manifest (client host aside), the load policy (its own
// request count aside), the SLO and the tokenizer of the token check.
func settings(r *result.Result) map[string]any {
	m := r.Manifest
	m.ClientHost = ""
	l := r.Load
	l.Requests = 0
	out := map[string]any{"manifest": m, "load": l, "schema": r.Schema}
	if s := r.Summary.SLOResult; s != nil {
		out["slo"] = s.SLO.String()
	}
	if tc := r.Summary.TokenCheck; tc != nil {
		out["tokenizer"] = tc.TokenizerHash
	}
	return out
}

// differs names the first field (as manifest.engine_version) whose JSON
// differs between a and b; "" when none does.
func differs(a, b map[string]any) string {
	flat := func(m map[string]any) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			raw, _ := json.Marshal(v)
			var sub map[string]json.RawMessage
			if json.Unmarshal(raw, &sub) != nil {
				out[k] = string(raw)
				continue
			}
			for sk, sv := range sub {
				out[k+"."+sk] = string(sv)
			}
		}
		return out
	}
	fa, fb := flat(a), flat(b)
	var keys []string
	for k := range fa {
		keys = append(keys, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !bytes.Equal([]byte(fa[k]), []byte(fb[k])) {
			return fmt.Sprintf("%s: %s and %s", k, orNone(fa[k]), orNone(fb[k]))
		}
	}
	return ""
}

// checkRecords ties a shard's records to its result: its run, workload
// and shard on every line, one step, and as many requests as its summary
// counts (a records file cut short or of another run is refused).
func checkRecords(x *Input) error {
	r, sh := x.Result, x.Result.Shard
	for i := range x.Records {
		rec := &x.Records[i]
		switch {
		case rec.RunID != r.RunID || rec.WorkloadSHA256 != r.Workload.SHA256:
			return fmt.Errorf("%s: record %d belongs to run %s (workload %.12s), not to %s's run %s", x.RecordsPath, i+1, orNone(rec.RunID), rec.WorkloadSHA256, x.Path, r.RunID)
		case rec.Shard == nil || rec.Shard.Index != sh.Index || rec.Shard.Count != sh.Count:
			return fmt.Errorf("%s: record %d does not name shard %d/%d", x.RecordsPath, i+1, sh.Index, sh.Count)
		case rec.Step != 0:
			return fmt.Errorf("%s: record %d is of step %d; a shard has one measured step", x.RecordsPath, i+1, rec.Step)
		}
	}
	s := r.Summary
	if want := s.RequestsOK + s.RequestsFailed + s.RequestsCancelled; len(x.Records) != want {
		return fmt.Errorf("%s: %d records, but %s counts %d sent requests (a records file cut short, or of another run)", x.RecordsPath, len(x.Records), x.Path, want)
	}
	if r.Shard.T0.IsZero() {
		return fmt.Errorf("%s: shard %d/%d never began its measured phase (interrupted before --start-at?)", x.Path, sh.Index, sh.Count)
	}
	return nil
}

// disjoint refuses a request sent by two shards.
func disjoint(in []Input) error {
	by := map[string]int{}
	for _, x := range in {
		for i := range x.Records {
			id := x.Records[i].ID
			if k, dup := by[id]; dup {
				return fmt.Errorf("request %q was sent by shard %d and shard %d: the shards were not split alike", id, k, x.Result.Shard.Index)
			}
			by[id] = x.Result.Shard.Index
		}
	}
	return nil
}

// checkClocks holds the shards' starts to the bound: the spread of their
// t=0 (each on its own clock), and the least disagreement between two
// shards' clocks that their server-clock offsets prove. It returns both,
// the second nil when fewer than two shards measured an offset.
func checkClocks(in []Input, bound time.Duration) (spread float64, disagree *float64, err error) {
	lo, hi := in[0], in[0]
	for _, x := range in {
		if x.Result.Shard.T0.Before(lo.Result.Shard.T0) {
			lo = x
		}
		if x.Result.Shard.T0.After(hi.Result.Shard.T0) {
			hi = x
		}
	}
	spread = hi.Result.Shard.T0.Sub(lo.Result.Shard.T0).Seconds()
	if spread > bound.Seconds() {
		return spread, nil, fmt.Errorf("shard %d started %.3f s after shard %d (%s, %s), more than --max-skew %v allows: the shards did not offer their load together",
			hi.Result.Shard.Index, spread, lo.Result.Shard.Index, hi.Path, lo.Path, bound)
	}
	maxLo, minHi := math.Inf(-1), math.Inf(1)
	var a, b int
	n := 0
	for _, x := range in {
		c := x.Result.Shard.ServerClock
		if c == nil {
			continue
		}
		n++
		if c.LoS > maxLo {
			maxLo, a = c.LoS, x.Result.Shard.Index
		}
		if c.HiS < minHi {
			minHi, b = c.HiS, x.Result.Shard.Index
		}
	}
	if n < 2 {
		return spread, nil, nil
	}
	d := math.Max(0, maxLo-minHi)
	if d > bound.Seconds() {
		return spread, &d, fmt.Errorf("the clocks of shard %d and shard %d disagree by at least %.3f s (their offsets from the server's Date header), more than --max-skew %v: synchronise the hosts' clocks (NTP) and run again", a, b, d, bound)
	}
	return spread, &d, nil
}
