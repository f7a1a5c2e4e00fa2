package benchmark

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
)

// A sharded run (benchmark --shard i/N --start-at T): N processes, each
// sending its part of one workload (workload.Shard's split: sessions
// whole), each starting its measured phase at T, later merged into one
// result (package benchmark/shards).
//
// Load per shard: --concurrency C keeps C requests of this shard in
// flight, so the shards together keep N×C. --rate R is this shard's mean
// rate: every shard draws the schedule of the whole workload at N×R (the
// same seed, so the same schedule on every host) and sends its own
// requests at their offsets in it, so the union of the shards is exactly
// the schedule one process would send at --rate N×R. Requests that carry
// arrival_offset_s (a trace) keep them. --max-concurrency and --warmup
// are per shard too.
//
// Order of a shard: detect the engine, warm up, reset the prefix cache
// when asked, then wait for T (probing the server's clock meanwhile) and
// start. The wait ends at once on an interrupt. A shard whose warmup ran
// past T starts at once; its lateness is recorded (Shard.StartSkewS) and
// merge refuses shards whose starts spread beyond its bound.

// ShardConfig makes a run one shard of a sharded run.
type ShardConfig struct {
	Index, Count int
	// Group identifies the sharded run; "" derives it (ShardGroup).
	Group string
	// StartAt is when the measured phase starts (required).
	StartAt time.Time
}

// Bounds on --start-at, checked before any request.
const (
	// StartGrace is how far in the past --start-at may be: a shard
	// started a moment late still starts, and records its lateness.
	StartGrace = 2 * time.Second
	// MaxStartAhead is how far ahead it may be: a start a day away is a
	// mistake in the date.
	MaxStartAhead = 24 * time.Hour
	// StartWarnSkew is the lateness beyond which a shard warns that it
	// started after the agreed instant.
	StartWarnSkew = 100 * time.Millisecond
)

// ShardGroup is the group of a sharded run that names none: a hash of
// the start instant, the workload's sha256 and the shard count, which
// every shard of one run computes alike.
func ShardGroup(startAt time.Time, workloadSHA string, count int) string {
	h := sha256.Sum256([]byte("servecmp.shard-group/1\n" + startAt.UTC().Format(time.RFC3339Nano) + "\n" + workloadSHA + "\n" + strconv.Itoa(count)))
	return hex.EncodeToString(h[:result.RunIDLen/2])
}

// validate checks the shard against the run's configuration and the
// clock now.
func (s *ShardConfig) validate(c *Config, now time.Time) error {
	switch {
	case s.Count < 1 || s.Count > workload.MaxShards || s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard %d/%d: want 0 <= i < N <= %d", s.Index, s.Count, workload.MaxShards)
	case c.SweepKind != "":
		return errors.New("a sweep cannot be sharded: the shards could not start each step together (run one sharded benchmark per load value)")
	case s.StartAt.IsZero():
		return errors.New("a shard needs its start instant (--start-at): shards that do not start together do not offer the load together")
	case s.StartAt.Before(now.Add(-StartGrace)):
		return fmt.Errorf("--start-at %s is %v in the past (at most %v is allowed): give a later instant", s.StartAt.UTC().Format(time.RFC3339), now.Sub(s.StartAt).Round(time.Second), StartGrace)
	case s.StartAt.After(now.Add(MaxStartAhead)):
		return fmt.Errorf("--start-at %s is more than %v ahead", s.StartAt.UTC().Format(time.RFC3339), MaxStartAhead)
	case len(s.Group) > 64:
		return errors.New("--shard-group: at most 64 characters")
	}
	_, err := workload.Shard(c.Workload.Requests, s.Index, s.Count)
	return err
}

// shardRequests returns the requests of the configured shard. In an open
// loop each unit's first request carries its start in the whole
// workload's schedule at the shards' total rate (an arrival offset, which
// the step then keeps), so that the shards together send that schedule.
func shardRequests(cfg *Config) ([]workload.Request, error) {
	sh, all := cfg.Shard, cfg.Workload.Requests
	idx, err := workload.Shard(all, sh.Index, sh.Count)
	if err != nil {
		return nil, err
	}
	var starts []float64 // by request index: a unit's first request's start
	if cfg.Load.Mode == result.ModeRate {
		if starts, err = unitStarts(all, cfg.Load, sh.Count); err != nil {
			return nil, err
		}
	}
	out := make([]workload.Request, len(idx))
	for k, i := range idx {
		out[k] = all[i]
		if starts != nil && out[k].Turn == 0 && out[k].ArrivalOffsetS == nil {
			v := starts[i]
			out[k].ArrivalOffsetS = &v
		}
	}
	return out, nil
}

// unitStarts is the open-loop start of every unit of the whole workload
// at n times the per-shard rate, indexed by the unit's first request: the
// generated arrival process gives unit k the k-th arrival, as a single
// process does (sessionStarts, arrivalOffsets).
func unitStarts(all []workload.Request, l result.LoadPolicy, n int) ([]float64, error) {
	total := l.Rate * float64(n) // +Inf stays +Inf: all at once
	sched, err := Schedule(len(all), total, l.Arrival, l.Burstiness, l.Seed)
	if err != nil {
		return nil, err
	}
	starts := make([]float64, len(all))
	for k, u := range workload.Units(all) {
		starts[u[0]] = sched[k]
	}
	return starts, nil
}

// Clock probing while a shard waits for its start.
const (
	clockProbes   = 3
	clockProbeGap = 350 * time.Millisecond
	// dateLag is how stale a server's Date header may be: some HTTP
	// stacks refresh it once a second rather than per answer.
	dateLag = time.Second
)

// waitStart waits for the shard's start instant, probing the server's
// clock first when there is time; an interrupt ends the wait at once.
func (r *runner) waitStart(ctx context.Context) error {
	sh := r.cfg.Shard
	r.clock = probeServerClock(ctx, r.client, sh.StartAt.Add(-clockProbeGap))
	if r.clock == nil {
		r.warn.add("the server's clock could not be read (no Date header, or no time before --start-at): this shard's clock is not checked against the other shards'")
	}
	t := time.NewTimer(time.Until(sh.StartAt))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return &InterruptedError{"interrupted while waiting for --start-at: no measured request was sent"}
	}
}

// probeServerClock bounds the server's clock minus this host's from the
// Date headers of a few answers, sent no later than until; nil when none
// carried a Date or the bounds contradict each other. A server stamps
// its answer while the request is in flight, at a time of its clock in
// [Date, Date + 1 s + dateLag): each probe sent at s and answered at a
// (this host) bounds the offset to [Date − a, Date + 1 s + dateLag − s].
func probeServerClock(ctx context.Context, c *client.Client, until time.Time) *result.ClockOffset {
	lo, hi := math.Inf(-1), math.Inf(1)
	n := 0
	for k := range clockProbes {
		if k > 0 && !sleepCtx(ctx, clockProbeGap) {
			break
		}
		if ctx.Err() != nil || time.Now().After(until) {
			break
		}
		pctx, cancel := context.WithDeadline(ctx, until)
		sent, recv, date, ok, err := c.ServerDate(pctx)
		cancel()
		if err != nil || !ok {
			continue
		}
		n++
		lo = math.Max(lo, date.Sub(recv).Seconds())
		hi = math.Min(hi, date.Add(time.Second+dateLag).Sub(sent).Seconds())
	}
	if n == 0 || lo > hi {
		return nil
	}
	return &result.ClockOffset{LoS: lo, HiS: hi, Probes: n}
}

// sleepCtx sleeps for d, false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// startShard fills the shard block of the result once its measured phase
// has begun at t0.
func (r *runner) startShard(t0 time.Time) {
	sh := r.res.Shard
	sh.T0 = t0.UTC().Round(0)
	sh.StartSkewS = t0.Round(0).Sub(sh.StartAt).Seconds()
	sh.ServerClock = r.clock
	if d := time.Duration(sh.StartSkewS * 1e9); d > StartWarnSkew {
		r.warn.add(fmt.Sprintf("this shard started %v after --start-at (its detection, warmup or prefix-cache reset ran past it): merge refuses shards whose starts spread more than its --max-skew", d.Round(time.Millisecond)))
	}
}

// TokenDiffPct is the token check's relative difference (percent) of
// server over client counts after the one-token-per-request allowance
// (TokenCheck), for a merge that adds up shards' counts.
func TokenDiffPct(server, client int64, requests int) float64 {
	return diffPct(server, client, requests)
}

// Warmup sends only the warmup requests of cfg (Load.Warmup of them,
// shaped and sent as Run's warmup) and returns their phase and the
// warnings: a caller that shards the measured load over processes warms
// the server once, in one process, at the whole load, and gives the
// shards no warmup of their own.
func Warmup(ctx context.Context, cfg Config) (result.Phase, []string, error) {
	if err := cfg.Validate(); err != nil {
		return result.Phase{}, nil, err
	}
	r := &runner{cfg: &cfg, client: cfg.Client, reqs: cfg.Workload.Requests}
	if r.client == nil {
		r.client = client.New(client.Options{BaseURL: cfg.URL, APIKey: cfg.APIKey, Conns: cfg.conns(),
			RequestTimeout: durSeconds(cfg.Load.RequestTimeoutS)})
		defer r.client.Close()
	}
	if err := r.prepare(ctx); err != nil {
		return result.Phase{}, nil, err
	}
	ph, err := r.warmup(ctx)
	if err == nil && r.res.Incomplete {
		err = &InterruptedError{"interrupted during the warmup: no measured request was sent"}
	}
	return ph, r.warn.all(), err
}
