package shards

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/result"
)

// Options tune a merge.
type Options struct {
	// MaxSkew bounds the spread of the shards' starts and the proven
	// disagreement of their clocks; 0 means DefaultMaxSkew.
	MaxSkew time.Duration
	// Records, for MergeFiles, is where the merged records go ("" for
	// nowhere).
	Records string
}

// MergeFiles reads the shards' results and records among paths
// (ReadFiles), merges them and writes the merged records to o.Records.
func MergeFiles(paths []string, o Options) (*result.Result, error) {
	in, err := ReadFiles(paths)
	if err != nil {
		return nil, err
	}
	res, recs, err := Merge(in, o)
	if err != nil {
		return nil, err
	}
	if o.Records != "" {
		if err := WriteRecords(o.Records, recs); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Merge checks that in are the complete shards of one sharded run and
// returns the merged result and its records (the union, rebased to the
// merged t=0, each carrying the merged run id). The error names the file
// that does not fit.
func Merge(in []Input, o Options) (*result.Result, []result.Record, error) {
	if len(in) == 0 {
		return nil, nil, fmt.Errorf("no shards to merge")
	}
	in = slices.Clone(in)
	if err := check(in); err != nil {
		return nil, nil, err
	}
	bound := cmp.Or(o.MaxSkew, DefaultMaxSkew)
	spread, disagree, err := checkClocks(in, bound)
	if err != nil {
		return nil, nil, err
	}
	res := mergedHead(in)
	recs, sendEnd := rebase(in, res.RunID)
	complete := true
	notSent := 0
	for _, x := range in {
		s := x.Result.Summary
		notSent += s.RequestsNotSent
		complete = complete && !x.Result.Incomplete && s.CompletionTimeS != nil
	}
	sum := result.NewSummary(recs, notSent, complete)
	if imp := in[0].Result.Summary.ImpliedReuseShare; imp != nil && notSent == 0 && !res.Incomplete {
		sum.ImpliedReuseShare = imp // a trace's, the same in every shard (the workload's header)
	}
	sum.TokenCheck = tokenCheck(in)
	if slo := in[0].Result.Summary.SLOResult; slo != nil {
		sum.SLOResult = result.StepSLO(recs, sum.DurationS, slo.SLO)
	}
	res.Summary = sum
	res.Phases.Steady, res.Phases.Drain = result.SplitPhases(recs, sendEnd)
	res.Phases.Warmup = warmup(in)
	res.Shards = &result.Shards{Count: len(in), Group: in[0].Result.Shard.Group, StartAt: in[0].Result.Shard.StartAt,
		StartSpreadS: spread, MaxSkewS: bound.Seconds(), ClockDisagreementS: disagree}
	for _, x := range in {
		r := x.Result
		res.Shards.Parts = append(res.Shards.Parts, result.ShardPart{Index: r.Shard.Index, RunID: r.RunID, ClientHost: r.Manifest.ClientHost,
			T0: r.Shard.T0, StartSkewS: r.Shard.StartSkewS, Requests: r.Shard.Requests, Incomplete: r.Incomplete, ServerClock: r.Shard.ServerClock})
	}
	res.Warnings = warnings(in)
	return res, recs, nil
}

// mergedHead is the merged result without its figures: identity,
// manifest, workload, the total load, times, metrics and status.
func mergedHead(in []Input) *result.Result {
	first := in[0].Result
	res := &result.Result{Schema: result.Schema, RunID: runID(in), Manifest: first.Manifest, Workload: first.Workload}
	n := len(in)
	l := first.Load
	l.Concurrency *= n
	l.MaxConcurrency *= n
	l.Warmup *= n
	l.Rate *= float64(n) // +Inf stays +Inf
	l.Requests = 0
	var hosts []string
	var metricsEnd time.Time
	for _, x := range in {
		r := x.Result
		l.Requests += r.Load.Requests
		hosts = append(hosts, r.Manifest.ClientHost)
		res.Incomplete = res.Incomplete || r.Incomplete
		if res.StartedAt.IsZero() || r.StartedAt.Before(res.StartedAt) {
			res.StartedAt = r.StartedAt
		}
		if r.EndedAt.After(res.EndedAt) {
			res.EndedAt = r.EndedAt
		}
		// The server's metrics are server-wide: every shard scraped the
		// same server; keep the scrape that ran longest into the run.
		if r.ServerMetrics != nil && r.EndedAt.After(metricsEnd) {
			res.ServerMetrics, metricsEnd = r.ServerMetrics, r.EndedAt
		}
	}
	res.Load = l
	slices.Sort(hosts)
	res.Manifest.ClientHost = strings.Join(slices.Compact(hosts), ",")
	// The offered load in the words one process would use: the shards
	// are how it was sent (the Shards block), not what was offered.
	res.Manifest.LoadPolicy = l.String()
	return res
}

// runID is the merged run's id: a hash of the shards' run ids, so that
// merging the same shards twice gives the same run (compare refuses it
// given twice).
func runID(in []Input) string {
	ids := make([]string, len(in))
	for i, x := range in {
		ids[i] = x.Result.RunID
	}
	slices.Sort(ids)
	h := sha256.Sum256([]byte("servecmp.merged-run/1\n" + strings.Join(ids, "\n")))
	return hex.EncodeToString(h[:result.RunIDLen/2])
}

// rebase returns the union of the shards' records with their send times
// moved to the merged t=0 (the earlier of the agreed start and the
// earliest shard's t=0) and the merged run id, ordered by end, and when
// sending stopped (the latest shard's, on the merged clock).
func rebase(in []Input, id string) (recs []result.Record, sendEnd float64) {
	t0 := in[0].Result.Shard.StartAt
	for _, x := range in {
		if x.Result.Shard.T0.Before(t0) {
			t0 = x.Result.Shard.T0
		}
	}
	for _, x := range in {
		shift := x.Result.Shard.T0.Sub(t0).Seconds()
		sendEnd = math.Max(sendEnd, shift+x.Result.Phases.Steady.EndS)
		for _, r := range x.Records {
			r.RunID = id
			r.SentS += shift
			r.ScheduledS += shift
			recs = append(recs, r)
		}
	}
	slices.SortStableFunc(recs, func(a, b result.Record) int { return cmp.Compare(a.EndS(), b.EndS()) })
	return recs, sendEnd
}

// warmup sums the shards' warmups: each ran on its own before the
// agreed start, so their window is the longest of them.
func warmup(in []Input) result.Phase {
	var p result.Phase
	for _, x := range in {
		w := x.Result.Phases.Warmup
		p.EndS = math.Max(p.EndS, w.EndS)
		p.RequestsSent += w.RequestsSent
		p.RequestsCompleted += w.RequestsCompleted
		p.RequestsOK += w.RequestsOK
		p.RequestsFailed += w.RequestsFailed
		p.OutputTokens += w.OutputTokens
		p.MeanConcurrency += w.MeanConcurrency
	}
	p.DurationS = p.EndS - p.StartS
	if p.DurationS > 0 {
		p.RequestThroughput = float64(p.RequestsOK) / p.DurationS
		p.OutputThroughput = float64(p.OutputTokens) / p.DurationS
	}
	return p
}

// tokenCheck adds up the shards' client-side token counts; nil when the
// shards counted none.
func tokenCheck(in []Input) *result.TokenCheck {
	var tc *result.TokenCheck
	for _, x := range in {
		s := x.Result.Summary.TokenCheck
		if s == nil {
			continue
		}
		if tc == nil {
			tc = &result.TokenCheck{Tokenizer: s.Tokenizer, TokenizerHash: s.TokenizerHash}
		}
		tc.Requests += s.Requests
		tc.PromptRequests += s.PromptRequests
		tc.ServerPromptTokens += s.ServerPromptTokens
		tc.ClientPromptTokens += s.ClientPromptTokens
		tc.ServerCompletionTokens += s.ServerCompletionTokens
		tc.ClientCompletionTokens += s.ClientCompletionTokens
		tc.ClientChatPromptTokens += s.ClientChatPromptTokens
	}
	if tc != nil {
		tc.PromptDiffPct = benchmark.TokenDiffPct(tc.ServerPromptTokens, tc.ClientPromptTokens, tc.PromptRequests)
		tc.CompletionDiffPct = benchmark.TokenDiffPct(tc.ServerCompletionTokens, tc.ClientCompletionTokens, tc.Requests)
	}
	return tc
}

// warnings are the shards' own warnings, each once, prefixed with the
// shards that gave it, and the merge's.
func warnings(in []Input) []string {
	var order []string
	by := map[string][]string{}
	for _, x := range in {
		for _, w := range x.Result.Warnings {
			if _, ok := by[w]; !ok {
				order = append(order, w)
			}
			by[w] = append(by[w], fmt.Sprint(x.Result.Shard.Index))
		}
	}
	out := []string{}
	n := len(in)
	for _, w := range order {
		who := "shards " + strings.Join(by[w], ",")
		if len(by[w]) == n {
			who = "every shard"
		} else if len(by[w]) == 1 {
			who = "shard " + by[w][0]
		}
		out = append(out, who+": "+w)
	}
	if slices.ContainsFunc(in, func(x Input) bool { return x.Result.Incomplete }) {
		out = append(out, "a shard was interrupted: the merged figures cover what the shards measured")
	}
	return out
}
