package benchmark

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servecmp/servecmp/benchmark/workload"
)

// Load modes.
const (
	ModeConcurrency = "concurrency"
	ModeRate        = "rate"
	ModeTrace       = "trace"
)

// Drain rules.
const (
	DrainWait   = "wait"
	DrainCancel = "cancel"
)

// LagWarnMs is the open-loop send-lag p99 (ms) above which a run warns
// that it did not offer the load it was asked for.
const LagWarnMs = 10.0

// InterruptDrainCap bounds the drain after an interrupt when the drain
// rule is "wait" with no timeout: an interrupted run never waits forever.
const InterruptDrainCap = 30 * time.Second

// Config is one benchmark invocation. Load carries the policy; for a sweep,
// SweepKind ("concurrency" or "rate") and SweepValues replace
// Load.Concurrency or Load.Rate step by step.
type Config struct {
	Client   *Client
	Engine   string // resolved engine (not "auto")
	Model    string
	Workload *workload.Workload
	Load     LoadPolicy

	SweepKind           string
	SweepValues         []float64
	SaturationThreshold float64

	// OnRecord receives every measured request's record as the request
	// ends; calls are serialised.
	OnRecord func(*Record) error
	// Progress, when non-nil, is updated as requests end.
	Progress *Progress
	// BeforeStep, when non-nil, is called right before each measured step
	// starts (after warmup and any prefix-cache reset): the caller takes a
	// server-metrics baseline there.
	BeforeStep func(step int)
}

// Progress is live run state for a progress display; read it with the
// atomic loads from another goroutine.
type Progress struct {
	Step         atomic.Int64
	Total        atomic.Int64 // requests offered in the current step
	Done         atomic.Int64
	OK           atomic.Int64
	Failed       atomic.Int64
	OutputTokens atomic.Int64
	Started      atomic.Int64 // UnixNano of the current step's start
}

// Validate checks a load policy and fills defaults (arrival, drain).
func (l *LoadPolicy) Validate() error {
	switch l.Mode {
	case ModeConcurrency:
		if l.Concurrency < 1 {
			return errors.New("concurrency must be at least 1")
		}
	case ModeRate:
		if !(l.Rate > 0) || math.IsInf(l.Rate, 0) {
			return errors.New("rate must be a positive number of requests/s")
		}
		if l.Arrival == "" {
			l.Arrival = ArrivalPoisson
		}
		switch l.Arrival {
		case ArrivalConstant, ArrivalPoisson:
		case ArrivalGamma:
			if !(l.Burstiness > 0) || math.IsInf(l.Burstiness, 0) {
				return errors.New("burstiness must be a positive gamma shape")
			}
		default:
			return fmt.Errorf("unknown arrival %q (want constant, poisson or gamma)", l.Arrival)
		}
	case ModeTrace:
	default:
		return fmt.Errorf("unknown load mode %q", l.Mode)
	}
	if l.MaxConcurrency < 0 || l.Warmup < 0 || l.DurationS < 0 || l.DrainTimeoutS < 0 || l.RequestTimeoutS < 0 {
		return errors.New("max-concurrency, warmup, duration, drain-timeout and request-timeout must not be negative")
	}
	if l.Drain == "" {
		l.Drain = DrainWait
	}
	if l.Drain != DrainWait && l.Drain != DrainCancel {
		return fmt.Errorf("unknown drain rule %q (want wait or cancel)", l.Drain)
	}
	return nil
}

// warnings collects de-duplicated warnings from many goroutines.
type warnings struct {
	mu   sync.Mutex
	seen map[string]bool
	list []string
}

func (w *warnings) add(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	if !w.seen[s] {
		w.seen[s] = true
		w.list = append(w.list, s)
	}
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string{}, w.list...)
}

// stepOut is what one executed step produced.
type stepOut struct {
	recs        []Record // sent requests only, in workload order
	start       time.Time
	notSent     int
	interrupted bool
	// sendEndS is when sending stopped (seconds from t=0): the last send
	// of a whole workload, else the --duration deadline or the interrupt.
	// The offered load was held until then.
	sendEndS float64
	drainCut bool // in-flight requests were cancelled at the end
}

// Run executes the warmup and every measured step and returns the result
// without its manifest (the caller fills that in). It returns an error only
// for an unusable configuration; request failures are results. When ctx is
// cancelled it stops sending, applies the drain rule and returns what was
// measured with Incomplete set.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Client == nil || cfg.Workload == nil {
		return nil, errors.New("benchmark: client and workload are required")
	}
	load := cfg.Load
	if err := load.Validate(); err != nil {
		return nil, err
	}
	var warn warnings
	reqs := cfg.Workload.Requests
	if len(reqs) == 0 {
		return nil, fmt.Errorf("workload %s has no requests", cfg.Workload.Path)
	}
	prep := make([]prepared, len(reqs))
	for i := range reqs {
		p, err := buildBody(&reqs[i], cfg.Model, cfg.Engine, warn.add)
		if err != nil {
			return nil, fmt.Errorf("workload %s: %w", cfg.Workload.Path, err)
		}
		prep[i] = p
	}
	res := &Result{
		Schema:   Schema,
		Workload: WorkloadInfo{Path: cfg.Workload.Path, SHA256: cfg.Workload.SHA256, Count: len(reqs)},
	}
	res.StartedAt = time.Now().UTC()
	hasOffsets := slices.ContainsFunc(reqs, func(r workload.Request) bool { return r.ArrivalOffsetS != nil })
	if hasOffsets && load.Mode == ModeConcurrency {
		warn.add("closed-loop run: the workload's arrival offsets are ignored")
	}

	// Warmup: the first N requests' shapes (cycling if N exceeds the
	// workload) with their prompts reversed (warmupPrompt) and ids
	// suffixed "-warmup", sent closed-loop and never recorded. They are
	// not the measured requests: replaying those would put their prompts
	// in the prefix cache before they are measured.
	var warmPhase Phase
	if n := load.Warmup; n > 0 {
		wp := make([]prepared, n)
		same := 0
		for i := range wp {
			r := warmupRequest(&reqs[i%len(reqs)])
			if samePrompt(&r, &reqs[i%len(reqs)]) {
				same++
			}
			p, err := buildBody(&r, cfg.Model, cfg.Engine, warn.add)
			if err != nil {
				return nil, fmt.Errorf("workload %s: warmup: %w", cfg.Workload.Path, err)
			}
			wp[i] = p
		}
		if same > 0 {
			warn.add(fmt.Sprintf("warmup: %d of %d warmup prompts read the same reversed (palindromes or one token/word) and repeat a measured prompt", same, n))
		}
		wl := LoadPolicy{Mode: ModeConcurrency, Concurrency: load.Concurrency, Drain: DrainWait, DrainTimeoutS: load.DrainTimeoutS}
		if load.Mode != ModeConcurrency {
			wl.Concurrency = load.MaxConcurrency
			if wl.Concurrency == 0 {
				wl.Concurrency = n
			}
		}
		out := runStep(ctx, cfg.Client, wp, nil, wl, -1, nil, nil)
		end := 0.0
		failed := 0
		for i := range out.recs {
			end = math.Max(end, endS(&out.recs[i]))
			if !out.recs[i].OK {
				failed++
			}
		}
		warmPhase = phase(out.recs, 0, end)
		if failed > 0 {
			warn.add(fmt.Sprintf("warmup: %d of %d requests failed", failed, len(out.recs)))
		}
		if out.interrupted {
			res.Incomplete = true
		}
	}

	values := cfg.SweepValues
	if cfg.SweepKind == "" {
		values = []float64{0}
	}
	if len(values) > 1 && !load.ResetPrefixCache {
		warn.add("sweep: every step re-sends the same prompts and the prefix cache is not reset between steps (--reset-prefix-cache): later steps may hit the cache and look faster")
	}
	var mu sync.Mutex
	onRecord := func(r *Record) {
		if cfg.OnRecord == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if err := cfg.OnRecord(r); err != nil {
			warn.add("writing records: " + err.Error())
		}
	}
	var steps []SweepStep
	for si, v := range values {
		if res.Incomplete || ctx.Err() != nil {
			res.Incomplete = true
			break
		}
		sl := load
		switch cfg.SweepKind {
		case ModeConcurrency:
			sl.Concurrency = int(v)
		case ModeRate:
			sl.Rate = v
		}
		if err := sl.Validate(); err != nil {
			return nil, err
		}
		var stepWarn warnings
		if cfg.SweepKind != "" {
			c := sl.Concurrency
			if cfg.SweepKind == ModeRate {
				c = sl.MaxConcurrency
			}
			if c > 0 && len(reqs) < 4*c {
				stepWarn.add(fmt.Sprintf("%d requests are fewer than 4 × concurrency %d: too few admission waves for a steady state", len(reqs), c))
			}
		}
		if load.ResetPrefixCache {
			if err := cfg.Client.ResetPrefixCache(ctx, cfg.Engine); err != nil {
				stepWarn.add("reset prefix cache: " + err.Error())
			}
		}
		var offsets []float64
		if sl.Mode != ModeConcurrency {
			var err error
			if offsets, err = arrivalOffsets(reqs, sl); err != nil {
				return nil, err
			}
		}
		if p := cfg.Progress; p != nil {
			p.Step.Store(int64(si))
			p.Total.Store(int64(len(reqs)))
			p.Done.Store(0)
			p.OK.Store(0)
			p.Failed.Store(0)
			p.OutputTokens.Store(0)
			p.Started.Store(time.Now().UnixNano())
		}
		if cfg.BeforeStep != nil {
			cfg.BeforeStep(si)
		}
		out := runStep(ctx, cfg.Client, prep, offsets, sl, si, onRecord, cfg.Progress)
		sl.Requests = len(reqs)
		complete := !out.interrupted && !out.drainCut
		sum := Summarize(out.recs, out.notSent, complete)
		steady, drain := phases(out.recs, out.sendEndS)
		st := SweepStep{Value: v, Load: sl, Summary: sum, Phases: Phases{Steady: steady, Drain: drain}}
		if si == 0 {
			st.Phases.Warmup = warmPhase
		}
		if sum.UsageMissing > 0 {
			stepWarn.add(fmt.Sprintf("%d of %d successful requests had no usage from the server: their output tokens were counted from the chunks (token_ids length, else one per content chunk)", sum.UsageMissing, sum.RequestsOK))
		}
		if sum.InputTokensUnknown > 0 {
			stepWarn.add(fmt.Sprintf("%d successful requests had neither usage nor token-id prompts: their input tokens are unknown and count 0 in input_tokens and input_throughput", sum.InputTokensUnknown))
		}
		if sum.LengthMismatches > 0 {
			stepWarn.add(fmt.Sprintf("%d fixed-length requests produced a different number of tokens than requested (records: length_mismatch)", sum.LengthMismatches))
		}
		if sl.Mode != ModeConcurrency && sum.SendLag.Count > 0 && sum.SendLag.P99 > LagWarnMs {
			msg := fmt.Sprintf("sends fell behind the schedule: send lag p50 %.1f ms, p99 %.1f ms, max %.1f ms", sum.SendLag.P50, sum.SendLag.P99, sum.SendLag.Max)
			if sum.CapDelayed > 0 {
				msg += fmt.Sprintf("; %d requests waited for a --max-concurrency slot", sum.CapDelayed)
			}
			stepWarn.add(msg + ": the offered load was lower than asked")
		}
		if sum.ChunkTokenMismatches > 0 {
			stepWarn.add(fmt.Sprintf("%d successful requests had chunk token counts that do not add up to usage.completion_tokens (tokens coalesced without continuous usage or token_ids): itl_per_token_ms and tokens_per_chunk count one token per chunk for them", sum.ChunkTokenMismatches))
		}
		if sl.DurationS > 0 && out.notSent == 0 && !out.interrupted {
			stepWarn.add(fmt.Sprintf("the workload ran out before --duration %gs: every request was sent", sl.DurationS))
		}
		st.Warnings = stepWarn.all()
		for _, w := range st.Warnings {
			if cfg.SweepKind != "" {
				w = fmt.Sprintf("step %d (%s %g): %s", si, cfg.SweepKind, v, w)
			}
			warn.add(w)
		}
		steps = append(steps, st)
		res.StepStarts = append(res.StepStarts, out.start)
		if out.interrupted {
			res.Incomplete = true
		}
	}
	if len(steps) == 0 {
		res.Load = load
		res.Load.Requests = len(reqs)
		res.Phases.Warmup = warmPhase
		res.Summary = Summarize(nil, len(reqs), false)
	} else {
		last := steps[len(steps)-1]
		res.Load, res.Summary, res.Phases = last.Load, last.Summary, last.Phases
		res.Phases.Warmup = warmPhase
	}
	if cfg.SweepKind != "" {
		sw := &Sweep{Kind: cfg.SweepKind, Values: values, Threshold: cfg.SaturationThreshold, Steps: steps}
		if sw.Steps == nil {
			sw.Steps = []SweepStep{}
		}
		tp := make([]float64, len(steps))
		for i, s := range steps {
			tp[i] = s.Summary.OutputThroughput
		}
		at := Saturation(tp, cfg.SaturationThreshold)
		if at >= 0 {
			v := steps[at].Value
			sw.SaturationAt, sw.Saturated = &v, true
		} else {
			warn.add("sweep: output throughput was still improving at the last step: saturation was not reached")
		}
		res.Sweep = sw
	}
	if res.Incomplete {
		warn.add("the run was interrupted: figures cover only what was measured before the interrupt")
	}
	res.Warnings = warn.all()
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	return res, nil
}

// warmupRequest is a warmup copy of r: the same length, sampling and
// output settings, with id suffixed "-warmup" and the prompt reversed
// (token ids, or the words of the text and of every chat message), so
// that its prompt shares no prefix with the measured request.
func warmupRequest(r *workload.Request) workload.Request {
	w := *r
	w.ID += "-warmup"
	w.ArrivalOffsetS = nil
	if len(r.PromptTokens) > 0 {
		w.PromptTokens = slices.Clone(r.PromptTokens)
		slices.Reverse(w.PromptTokens)
	}
	w.Prompt = reverseWords(r.Prompt)
	if len(r.Messages) > 0 {
		w.Messages = slices.Clone(r.Messages)
		for i := range w.Messages {
			w.Messages[i].Content = reverseWords(w.Messages[i].Content)
		}
	}
	return w
}

// reverseWords reverses the order of the space-separated words of s.
func reverseWords(s string) string {
	if s == "" {
		return s
	}
	f := strings.Fields(s)
	slices.Reverse(f)
	return strings.Join(f, " ")
}

// samePrompt reports whether a and b send the same prompt.
func samePrompt(a, b *workload.Request) bool {
	return slices.Equal(a.PromptTokens, b.PromptTokens) && a.Prompt == b.Prompt && slices.Equal(a.Messages, b.Messages)
}

// Saturation returns the index of the first step after which no later step
// improves throughput by more than threshold (relative to that step), or
// −1 when every step is still followed by an improvement. The last step
// alone can never be the saturation point: at least one higher step must
// show that more offered work did not help.
func Saturation(throughput []float64, threshold float64) int {
	for i := 0; i < len(throughput)-1; i++ {
		better := false
		for _, t := range throughput[i+1:] {
			if t > throughput[i]*(1+threshold) {
				better = true
				break
			}
		}
		if !better {
			return i
		}
	}
	return -1
}

// arrivalOffsets is the open-loop schedule: a request's own
// ArrivalOffsetS when it has one, else the generated arrival process.
func arrivalOffsets(reqs []workload.Request, l LoadPolicy) ([]float64, error) {
	var off []float64
	if l.Mode == ModeTrace {
		off = make([]float64, len(reqs))
	} else {
		var err error
		if off, err = Schedule(len(reqs), l.Rate, l.Arrival, l.Burstiness, l.Seed); err != nil {
			return nil, err
		}
	}
	for i := range reqs {
		if o := reqs[i].ArrivalOffsetS; o != nil {
			if *o < 0 || math.IsNaN(*o) {
				return nil, fmt.Errorf("request %q: negative arrival offset", reqs[i].ID)
			}
			off[i] = *o
		} else if l.Mode == ModeTrace {
			return nil, fmt.Errorf("request %q has no arrival_offset_s (trace mode needs one on every request)", reqs[i].ID)
		}
	}
	return off, nil
}

// runStep sends reqs under policy l and drains. offsets (seconds) is the
// open-loop schedule, nil for a closed loop. step is the records' step
// index. t=0 is the step's start, which is also the first scheduled send.
func runStep(ctx context.Context, c *Client, reqs []prepared, offsets []float64, l LoadPolicy, step int,
	onRecord func(*Record), prog *Progress) stepOut {
	clk := newClock()
	out := stepOut{start: clk.start}
	n := len(reqs)
	recs := make([]Record, n)
	sent := make([]bool, n)
	reqCtx, cancelReqs := context.WithCancelCause(context.Background())
	defer cancelReqs(nil)
	var wg sync.WaitGroup
	deadline := durSeconds(l.DurationS)
	stopped := func() bool {
		return ctx.Err() != nil || (deadline > 0 && clk.now() >= deadline)
	}
	exec := func(i int, sched time.Duration, capDelayed bool, onSend func()) {
		rec := &recs[i]
		rec.ID, rec.Step, rec.ScheduledS, rec.CapDelayed = reqs[i].req.ID, step, seconds(sched), capDelayed
		s := c.do(reqCtx, clk, &reqs[i], rec, onSend)
		if onSend != nil {
			onSend() // idempotent; covers a request that failed before sending
		}
		rec.SentS = seconds(s)
		if prog != nil {
			prog.Done.Add(1)
			if rec.OK {
				prog.OK.Add(1)
				prog.OutputTokens.Add(int64(rec.CompletionTokens))
			} else {
				prog.Failed.Add(1)
			}
		}
		if onRecord != nil {
			onRecord(rec)
		}
	}

	if offsets == nil {
		// Closed loop: each worker takes the next request as soon as its
		// previous one ends. Sending is over when the last request has
		// been sent, the duration passes or ctx is cancelled.
		var next atomic.Int64
		exhausted := make(chan struct{})
		var once sync.Once
		for range min(l.Concurrency, n) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stopped() {
					i := int(next.Add(1) - 1)
					if i >= n {
						return
					}
					sent[i] = true
					var onSend func()
					if i == n-1 {
						onSend = func() { once.Do(func() { close(exhausted) }) }
					}
					exec(i, clk.now(), false, onSend)
				}
			}()
		}
		var dl <-chan time.Time
		if deadline > 0 {
			t := time.NewTimer(deadline - clk.now())
			defer t.Stop()
			dl = t.C
		}
		select {
		case <-exhausted:
		case <-dl:
		case <-ctx.Done():
		}
	} else {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return offsets[order[a]] < offsets[order[b]] })
		var sem chan struct{}
		if l.MaxConcurrency > 0 {
			sem = make(chan struct{}, l.MaxConcurrency)
		}
		timer := time.NewTimer(time.Hour)
		timer.Stop()
	dispatch:
		for _, i := range order {
			at := durSeconds(offsets[i])
			if deadline > 0 && at >= deadline {
				break
			}
			if d := at - clk.now(); d > 0 {
				timer.Reset(d)
				select {
				case <-timer.C:
				case <-ctx.Done():
					break dispatch
				}
			}
			if ctx.Err() != nil {
				break
			}
			capDelayed := false
			if sem != nil {
				select {
				case sem <- struct{}{}:
				default:
					capDelayed = true
					select {
					case sem <- struct{}{}:
					case <-ctx.Done():
						break dispatch
					}
				}
				if deadline > 0 && clk.now() >= deadline {
					<-sem
					break
				}
			}
			sent[i] = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				if sem != nil {
					defer func() { <-sem }()
				}
				exec(i, at, capDelayed, nil)
			}()
		}
	}

	// Sending is over; drain.
	out.sendEndS = seconds(clk.now())
	durationCut := deadline > 0 && ctx.Err() == nil
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	interrupted := ctx.Err() != nil
	if l.Drain == DrainCancel {
		select {
		case <-done:
		default:
			cancelReqs(&cancelCause{"cancelled by the drain rule"})
			out.drainCut = true
		}
	} else {
		limit := durSeconds(l.DrainTimeoutS)
		if interrupted && (limit == 0 || limit > InterruptDrainCap) {
			limit = InterruptDrainCap
		}
		var tc <-chan time.Time
		if limit > 0 {
			t := time.NewTimer(limit)
			defer t.Stop()
			tc = t.C
		}
		ctxDone := ctx.Done()
		if interrupted {
			ctxDone = nil
		}
	drain:
		for {
			select {
			case <-done:
				break drain
			case <-tc:
				cancelReqs(&cancelCause{"cancelled: drain timeout passed"})
				out.drainCut = true
				break drain
			case <-ctxDone:
				// Interrupted while draining: cap the rest of the wait.
				interrupted, ctxDone = true, nil
				if tc == nil {
					t := time.NewTimer(InterruptDrainCap)
					defer t.Stop()
					tc = t.C
				}
			}
		}
	}
	<-done
	if durationCut && slices.Contains(sent, false) {
		// Stopped by --duration: an open loop stops at its last arrival
		// before the deadline, but the load was offered until it.
		out.sendEndS = math.Max(out.sendEndS, seconds(deadline))
	}
	out.interrupted = interrupted || ctx.Err() != nil
	for i := range recs {
		if sent[i] {
			out.recs = append(out.recs, recs[i])
		} else {
			out.notSent++
		}
	}
	return out
}
