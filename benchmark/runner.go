package benchmark

import (
	"cmp"
	"context"

	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/redact"
)

// LagWarnMs is the open-loop send-lag p99 (ms) above which a run warns
// that it did not offer the load it was asked for.
const LagWarnMs = 10.0

// InterruptDrainCap bounds the drain after an interrupt when the drain
// rule is "wait" with no timeout: an interrupted run never waits forever.
const InterruptDrainCap = 30 * time.Second

// detectTimeout bounds the engine detection before the run.
const detectTimeout = 30 * time.Second

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
	recs        []result.Record // sent requests only, in workload order
	caps        []capture       // recs' captures, in the same order
	start       time.Time
	notSent     int
	interrupted bool
	// sendEndS is when sending stopped (seconds from t=0): the last send
	// of a whole workload, else the --duration deadline or the interrupt.
	// The offered load was held until then.
	sendEndS float64
	drainCut bool // in-flight requests were cancelled at the end
}

// runner is one Run's state.
type runner struct {
	cfg     *Config
	client  *client.Client
	info    client.EngineInfo // Engine is resolved (never "auto")
	model   string
	reqs    []workload.Request
	prep    []client.Prepared
	warn    warnings
	res     *result.Result
	metrics *metricsRun
	gpu     *gpuRun
	starts  []time.Time         // each measured step's t=0
	clock   *result.ClockOffset // a shard's server-clock probe (shard.go)
	shard   *result.ShardRef    // on every record of a shard
	recMu   sync.Mutex
	recErr  *RecordsError // the first OnRecord failure and the records lost
	// firstFail is the first failed request's class and message (under
	// recMu), for Result.FailureCause.
	firstFail string
	self      *float64 // sharedPrefixShare of reqs, once computed
	sweepWarm bool     // the sweep warned that its steps re-send cached prompts
}

// selfShare is the share of the prompt tokens the workload's own shared
// prefixes let a prefix cache serve (sharedPrefixShare), computed once.
func (r *runner) selfShare() float64 {
	if r.self == nil {
		s := sharedPrefixShare(r.reqs)
		r.self = &s
	}
	return *r.self
}

// RecordsError is returned with the complete result when Config.OnRecord
// failed (a full disk): the first failure, and how many records were not
// handed over from it on. The run itself went on; the records are
// incomplete, which is a failure of the invocation.
type RecordsError struct {
	Err  error
	Lost int
}

func (e *RecordsError) Error() string {
	return fmt.Sprintf("%v (%d records lost)", e.Err, e.Lost)
}
func (e *RecordsError) Unwrap() error { return e.Err }

// Run validates cfg, detects the engine, assembles the manifest, runs the
// warmup and every measured step while scraping the server's metrics, and
// returns the complete result. It returns an error only for an unusable
// configuration (Config.Validate's, found before any request is sent) or
// an unreachable server, or, together with the complete result, a
// *RecordsError when OnRecord failed; request failures are results. When ctx is
// cancelled it stops sending, applies the drain rule and returns what was
// measured with Incomplete set.
func Run(ctx context.Context, cfg Config) (*result.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &runner{cfg: &cfg, client: cfg.Client, reqs: cfg.Workload.Requests}
	if cfg.Shard != nil {
		var err error
		if r.reqs, err = shardRequests(&cfg); err != nil {
			return nil, err
		}
	}
	if r.client == nil {
		r.client = client.New(client.Options{BaseURL: cfg.URL, APIKey: cfg.APIKey, Conns: cfg.conns(),
			RequestTimeout: durSeconds(cfg.Load.RequestTimeoutS)})
		defer r.client.Close()
	}
	if err := r.prepare(ctx); err != nil {
		return nil, err
	}
	r.metrics = startMetrics(ctx, r.metricsConfig())
	r.gpu = startGPU(ctx, cfg.GPU)
	warm, err := r.warmup(ctx)
	if err == nil {
		err = r.sweep(ctx, warm)
	}
	r.metrics.stop()
	r.gpu.stop()
	if err != nil {
		return nil, err
	}
	r.finish()
	if r.recErr != nil {
		return r.res, r.recErr
	}
	return r.res, nil
}

// prepare detects the engine and model, assembles the manifest, encodes
// every request and makes sure the engine takes the workload's prompt
// form (promptForms).
func (r *runner) prepare(ctx context.Context) error {
	cfg := r.cfg
	if err := r.detect(ctx); err != nil {
		return err
	}
	r.res = &result.Result{
		Schema:    result.Schema,
		RunID:     newRunID(),
		Manifest:  r.manifest(),
		Workload:  result.WorkloadInfo{Path: cfg.Workload.Path, SHA256: cfg.Workload.SHA256, Count: len(cfg.Workload.Requests)},
		StartedAt: time.Now().UTC(),
	}
	if sh := cfg.Shard; sh != nil {
		r.res.Schema = result.ShardSchema
		group := cmp.Or(sh.Group, ShardGroup(sh.StartAt, cfg.Workload.SHA256, sh.Count))
		r.res.Shard = &result.Shard{Index: sh.Index, Count: sh.Count, Group: group, StartAt: sh.StartAt.UTC(), Requests: len(r.reqs)}
		r.shard = &result.ShardRef{Index: sh.Index, Count: sh.Count}
	}
	if h := cfg.Workload.Header; h != nil {
		r.res.Workload.TokenizerHash = h.TokenizerHash
	}
	r.prep = make([]client.Prepared, len(r.reqs))
	for i := range r.reqs {
		var err error
		if r.prep[i], err = client.Prepare(&r.reqs[i], r.model, r.info.Engine, r.warn.add); err != nil {
			return fmt.Errorf("workload %s: %w", cfg.Workload.Path, err)
		}
		r.prep[i].Capture = cfg.Tokenizer != nil // tokencount.go
	}
	hasOffsets := slices.ContainsFunc(r.reqs, func(q workload.Request) bool { return q.ArrivalOffsetS != nil })
	if hasOffsets && cfg.Load.Mode == result.ModeConcurrency {
		r.warn.add("closed-loop run: the workload's arrival offsets are ignored")
	}
	return r.promptForms(ctx)
}

// detect asks the server for its engine and model. An interrupt, the
// detection timeout and a server that names no model each get their own
// error: none of them is "the server lists no model".
func (r *runner) detect(ctx context.Context) error {
	wait := cmp.Or(r.cfg.detectTimeout, detectTimeout)
	dctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	info, err := r.client.Detect(dctx, r.cfg.Engine)
	switch {
	case ctx.Err() != nil:
		return &InterruptedError{"interrupted during engine detection: no request was sent"}
	case dctx.Err() != nil:
		return fmt.Errorf("engine detection at %s timed out after %v: is it a serving engine? (give --engine and --model to skip detection)", redact.URL(r.client.BaseURL()), wait)
	case err != nil:
		return err
	}
	r.info, r.model = info, r.cfg.Model
	if r.model == "" {
		if r.model, err = info.ModelChoice(r.client.BaseURL(), "--model"); err != nil {
			return err
		}
	}
	if r.model == "" {
		return fmt.Errorf("no model given (--model) and %s", info.ModelsErr)
	}
	r.client.ModelInfo(dctx, &r.info, r.model)
	return nil
}

// InterruptedError is a run stopped by an interrupt before it measured
// anything: there is no result to write.
type InterruptedError struct{ Msg string }

func (e *InterruptedError) Error() string { return e.Msg }

// manifest assembles the manifest once: what the run offers and
// detected, then the user's fields, which win.
func (r *runner) manifest() result.Manifest {
	cfg, info := r.cfg, r.info
	m := result.Manifest{
		Engine: info.Engine, EngineVersion: info.Version, EngineDetectedFrom: info.DetectedBy, Model: r.model,
		ServecmpVersion: cfg.Manifest.ServecmpVersion, ServecmpCommit: cfg.Manifest.ServecmpCommit,
		ClientHost: cfg.Manifest.ClientHost, URL: cmp.Or(cfg.URL, r.client.BaseURL()),
		LoadPolicy: cfg.loadPolicyText(), Seed: cfg.Load.Seed, Endpoint: endpointKind(cfg.Workload),
	}
	if info.Root != "" && info.Root != r.model {
		m.Extra = map[string]string{"model_root": info.Root}
	}
	for k, v := range info.Extra {
		if m.Extra == nil {
			m.Extra = map[string]string{}
		}
		m.Extra[k] = v
	}
	_ = m.SetAll(cfg.Manifest.Fields) // validated before the run
	m.URL = redact.URL(m.URL)
	m.Scrub(cfg.APIKey) // a server may echo the key in what it says of itself
	return m
}

// warmup sends the warmup requests: the first N requests' shapes (cycling
// if N exceeds the workload) with their prompts reversed (warmupRequest)
// and ids suffixed "-warmup", closed-loop and never recorded. They are not
// the measured requests: replaying those would put their prompts in the
// prefix cache before they are measured.
func (r *runner) warmup(ctx context.Context) (result.Phase, error) {
	load := r.cfg.Load
	n := load.Warmup
	if n == 0 {
		return result.Phase{}, nil
	}
	wp := make([]client.Prepared, n)
	same := 0
	for i := range wp {
		q := warmupRequest(&r.reqs[i%len(r.reqs)])
		if samePrompt(&q, &r.reqs[i%len(r.reqs)]) {
			same++
		}
		p, err := client.Prepare(&q, r.model, r.info.Engine, r.warn.add)
		if err != nil {
			return result.Phase{}, fmt.Errorf("workload %s: warmup: %w", r.cfg.Workload.Path, err)
		}
		wp[i] = p
	}
	if same > 0 {
		r.warn.add(fmt.Sprintf("warmup: %d of %d warmup prompts read the same reversed (palindromes or one token/word) and repeat a measured prompt", same, n))
	}
	wl := result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: load.Concurrency, Drain: result.DrainWait, DrainTimeoutS: load.DrainTimeoutS}
	if load.Mode != result.ModeConcurrency {
		wl.Concurrency = load.MaxConcurrency
		if wl.Concurrency == 0 {
			wl.Concurrency = n
		}
	}
	r.cfg.Progress.begin(-1, 0, n, loadText(&wl))
	out := runStep(ctx, r.client, wp, nil, wl, -1, nil, r.cfg.Progress)
	end, failed := 0.0, 0
	for i := range out.recs {
		end = math.Max(end, out.recs[i].EndS())
		if !out.recs[i].OK {
			failed++
		}
	}
	if failed > 0 {
		r.warn.add(fmt.Sprintf("warmup: %d of %d requests failed", failed, len(out.recs)))
	}
	if out.interrupted {
		r.res.Incomplete = true
	}
	return result.PhaseOf(out.recs, 0, end), nil
}

// sweep runs every measured step (one when there is no sweep) and fills
// the result's load, summary and phases from the last one.
func (r *runner) sweep(ctx context.Context, warm result.Phase) error {
	cfg := r.cfg
	values := cfg.SweepValues
	if cfg.SweepKind == "" {
		values = []float64{0}
	}
	var steps []result.SweepStep
	for si, v := range values {
		if r.res.Incomplete || ctx.Err() != nil {
			r.res.Incomplete = true
			break
		}
		st, err := r.sweepStep(ctx, si, v)
		if err != nil {
			return err
		}
		steps = append(steps, st)
	}
	if len(values) > 1 && !cfg.Load.ResetPrefixCache && !noCacheHits(steps, r.selfShare()+warmMargin) {
		r.sweepWarm = true // the warm-cache warning of finish would say it again
		r.warn.add("sweep: every step re-sends the same prompts and the prefix cache is not reset between steps (--reset-prefix-cache): later steps may hit the cache and look faster")
	}
	res := r.res
	if len(steps) == 0 {
		res.Load = cfg.Load
		res.Load.Requests = len(r.reqs)
		res.Summary = result.NewSummary(nil, len(r.reqs), false)
	} else {
		last := steps[len(steps)-1]
		res.Load, res.Summary, res.Phases = last.Load, last.Summary, last.Phases
		steps[0].Phases.Warmup = warm
	}
	res.Phases.Warmup = warm
	if cfg.SweepKind != "" {
		res.Sweep = r.saturation(values, steps)
		r.capacity(res.Sweep)
	}
	return nil
}

// sweepStep runs the measured step si with sweep value v.
func (r *runner) sweepStep(ctx context.Context, si int, v float64) (result.SweepStep, error) {
	cfg := r.cfg
	sl := *cfg.stepLoad(v)
	var stepWarn warnings
	if cfg.SweepKind != "" {
		c := sl.Concurrency
		if cfg.SweepKind == result.ModeRate {
			c = sl.MaxConcurrency
		}
		if c > 0 && len(r.reqs) < 4*c {
			stepWarn.add(fmt.Sprintf("%d requests are fewer than 4 × concurrency %d: too few admission waves for a steady state", len(r.reqs), c))
		}
	}
	if sl.ResetPrefixCache {
		if err := r.client.ResetPrefixCache(ctx, r.info.Engine); err != nil {
			stepWarn.add("reset prefix cache: " + err.Error())
		}
	}
	if cfg.Shard != nil {
		if err := r.waitStart(ctx); err != nil {
			return result.SweepStep{}, err
		}
	}
	var offsets []float64
	if sl.Mode != result.ModeConcurrency {
		var err error
		if offsets, err = arrivalOffsets(r.reqs, sl); err != nil {
			return result.SweepStep{}, err
		}
	}
	cfg.Progress.begin(si, max(len(cfg.SweepValues), 1), len(r.reqs), loadText(&sl))
	// A counter baseline at the measured phase's start, so that warmup
	// work is not counted in the window's increase; the GPUs are sampled
	// at both edges of the step.
	r.edges()
	out := runStep(ctx, r.client, r.prep, offsets, sl, si, r.record, cfg.Progress, cfg.hooks(si))
	r.gpu.edge()
	r.starts = append(r.starts, out.start)
	if cfg.Shard != nil {
		r.startShard(out.start)
	}
	if out.interrupted {
		r.res.Incomplete = true
	}
	sl.Requests = len(r.reqs)
	sum := result.NewSummary(out.recs, out.notSent, !out.interrupted && !out.drainCut)
	sum.TokenCheck = tokenCheck(cfg.Tokenizer, out.recs, out.caps)
	sum.SLOResult = result.StepSLO(out.recs, sum.DurationS, cfg.SLO)
	sum.Energy = r.gpu.energy(out.start, &sum)
	r.setImpliedReuse(&stepWarn, &sum, &out) // tracecache.go
	steady, drain := result.SplitPhases(out.recs, out.sendEndS)
	st := result.SweepStep{Value: v, Load: sl, Summary: sum, Phases: result.Phases{Steady: steady, Drain: drain}, Incomplete: out.interrupted}
	st.StartedAt, st.EndedAt = result.WallAt(out.start, 0, 1000*drain.EndS)
	stepWarnings(&stepWarn, &sl, &sum, &out, r.selfShare())
	tokenWarnings(&stepWarn, sum.TokenCheck, r.info.Simulated)
	if cfg.Tokenizer != nil && cfg.Tokenizer.Err() != nil {
		stepWarn.add(fmt.Sprintf("client token counts may be off: %v", cfg.Tokenizer.Err()))
	}
	st.Warnings = stepWarn.all()
	for _, w := range st.Warnings {
		if cfg.SweepKind != "" {
			w = fmt.Sprintf("step %d of %d (%s %g): %s", si+1, len(cfg.SweepValues), cfg.SweepKind, v, w)
		}
		r.warn.add(w)
	}
	return st, nil
}

// record hands a measured record to the caller, one at a time.
func (r *runner) record(rec *result.Record, c *capture) {
	rec.RunID, rec.WorkloadSHA256, rec.Shard = r.res.RunID, r.res.Workload.SHA256, r.shard // ties it to the result
	clientCounts(r.cfg.Tokenizer, rec, c)
	r.recMu.Lock()
	defer r.recMu.Unlock()
	if !rec.OK && r.firstFail == "" && rec.ErrorClass != result.ClassCancelled {
		r.firstFail = rec.ErrorClass
		if rec.Error != "" {
			r.firstFail += ": " + rec.Error
		}
	}
	if r.cfg.OnRecord == nil {
		return
	}
	if r.recErr != nil {
		r.recErr.Lost++ // the writer failed before: the record is lost
		return
	}
	if err := r.cfg.OnRecord(rec); err != nil {
		r.recErr = &RecordsError{Err: err, Lost: 1}
		r.warn.add("writing records failed: the records file is incomplete: " + err.Error())
	}
}

// stepWarnings adds the warnings one measured step's figures call for.
func stepWarnings(w *warnings, sl *result.LoadPolicy, sum *result.Summary, out *stepOut, self float64) {
	if sum.UsageMissing > 0 {
		w.add(fmt.Sprintf("%d of %d successful requests had no usage from the server: their output tokens were counted from the chunks (token_ids length, else one per content chunk)", sum.UsageMissing, sum.RequestsOK))
	}
	if n := sum.FailedByClass[result.ClassImplausible]; n > 0 {
		w.add(fmt.Sprintf("%d requests were dropped because their server reported implausible token counts (usage outside [0, 2^31), or more than %d×max_tokens+%d output tokens): they count as failed (%s) and none of their figures are used", n, result.TokenFactor, result.TokenSlack, result.ClassImplausible))
	}
	if sum.InputTokensUnknown > 0 {
		w.add(fmt.Sprintf("%d successful requests had neither usage nor token-id prompts: their input tokens are unknown and count 0 in input_tokens and input_throughput", sum.InputTokensUnknown))
	}
	if sum.LengthMismatches > 0 {
		w.add(fmt.Sprintf("%d fixed-length requests produced a different number of tokens than requested (records: length_mismatch)", sum.LengthMismatches))
	}
	if sl.Mode != result.ModeConcurrency && sum.SendLag.Count > 0 && sum.SendLag.P99 > LagWarnMs {
		msg := fmt.Sprintf("sends fell behind the schedule: send lag p50 %.1f ms, p99 %.1f ms, max %.1f ms", sum.SendLag.P50, sum.SendLag.P99, sum.SendLag.Max)
		if sum.CapDelayed > 0 {
			msg += fmt.Sprintf("; %d requests waited for a --max-concurrency slot", sum.CapDelayed)
		}
		w.add(msg + ": the offered load was lower than asked")
	}
	if sum.ChunkTokenMismatches > 0 {
		w.add(fmt.Sprintf("%d successful requests had chunk token counts that do not add up to usage.completion_tokens (tokens coalesced without continuous usage or token_ids): itl_per_token_ms and tokens_per_chunk count one token per chunk for them", sum.ChunkTokenMismatches))
	}
	requestWarnings(w, sum, self)
	failureWarning(w, sum, out.recs) // failwarn.go
	if sl.DurationS > 0 && out.notSent == 0 && !out.interrupted {
		w.add(fmt.Sprintf("the workload ran out before --duration %gs: every request was sent", sl.DurationS))
	}
}

// saturation builds the sweep's outcome: where output throughput stopped
// improving.
func (r *runner) saturation(values []float64, steps []result.SweepStep) *result.Sweep {
	sw := &result.Sweep{Kind: r.cfg.SweepKind, Values: values, Threshold: r.cfg.SaturationThreshold, Steps: steps}
	if sw.Steps == nil {
		sw.Steps = []result.SweepStep{}
	}
	// An interrupted step offered less than its load: it is shown,
	// marked, and left out of the saturation point.
	var tp []float64
	var use []int
	for i, s := range steps {
		if s.Incomplete {
			r.warn.add(fmt.Sprintf("sweep: step %d (%s %g) was interrupted: it is marked incomplete and not used for the saturation point", i+1, r.cfg.SweepKind, s.Value))
			continue
		}
		tp, use = append(tp, s.Summary.OutputThroughput), append(use, i)
	}
	if at := Saturation(tp, r.cfg.SaturationThreshold); at >= 0 {
		v := steps[use[at]].Value
		sw.SaturationAt, sw.Saturated = &v, true
	} else {
		r.warn.add("sweep: output throughput was still improving at the last step: saturation was not reached")
	}
	return sw
}

// finish adds the server metrics of the measured window and the last
// warnings.
func (r *runner) finish() {
	res := r.res
	res.EndedAt = time.Now().UTC()
	if res.Incomplete {
		r.warn.add("the run was interrupted: figures cover only what was measured before the interrupt")
	}
	res.Warnings = r.warn.all()
	res.FailureCause = failureCause(r.firstFail, r.model, r.info.Models)
	defer func() {
		// One place for every warning's secrets: the API key and URL
		// credentials never reach the result (scraper and step warnings
		// may quote a transport error that names the URL).
		for i, w := range res.Warnings {
			res.Warnings[i] = r.client.Redact(w, r.cfg.APIKey)
		}
		res.FailureCause = r.client.Redact(res.FailureCause, r.cfg.APIKey)
	}()
	if len(r.starts) == 0 {
		return
	}
	from := r.starts[0]
	to := r.starts[len(r.starts)-1].Add(durSeconds(res.Phases.Drain.EndS))
	r.finishGPU(from, to)
	if r.metrics == nil {
		return
	}
	sm := r.metrics.result(from, to)
	res.ServerMetrics = sm
	res.Warnings = append(res.Warnings, sm.Warnings...)
	if msg, replay := metricsReuseWarning(res); replay { // tracecache.go
		if msg != "" {
			res.Warnings = append(res.Warnings, msg)
		}
	} else if hr := sm.PrefixCacheHitRate; hr != nil && !r.sweepWarm {
		if w := warmCacheWarning(*hr, r.selfShare(), res.Load.ResetPrefixCache); w != "" {
			res.Warnings = append(res.Warnings, w)
		}
	}
}

// failureCause says why requests failed in the server's words: first is
// the first failure ("http_404: The model `x` does not exist."), model
// the model asked for and served what GET /v1/models listed. It names the
// served models when model is not among them. "" when nothing failed.
func failureCause(first, model string, served []string) string {
	if first == "" {
		return ""
	}
	const most = 300 // a one-line message, not the server's whole page
	if r := []rune(first); len(r) > most {
		first = string(r[:most]) + "…"
	}
	out := "first failure " + strings.Join(strings.Fields(first), " ")
	if len(served) > 0 && !slices.Contains(served, model) {
		out += fmt.Sprintf("; --model %q is not among the models the server lists at /v1/models: %s", model, strings.Join(served, ", "))
	}
	return out
}

// endpointKind says which endpoints the workload uses.
func endpointKind(w *workload.Workload) string {
	chat, comp := false, false
	for i := range w.Requests {
		if len(w.Requests[i].Messages) > 0 {
			chat = true
		} else {
			comp = true
		}
	}
	switch {
	case chat && comp:
		return "mixed"
	case chat:
		return "chat"
	}
	return "completions"
}

// warmupRequest is a warmup copy of r: the same length, sampling and
// output settings, with id suffixed "-warmup" and the prompt reversed
// (token ids, or the words of the text and of every chat message), so
// that its prompt shares no prefix with the measured request.
func warmupRequest(r *workload.Request) workload.Request {
	w := *r
	w.ID += "-warmup"
	w.ArrivalOffsetS = nil
	w.Session, w.Turn = "", 0 // warmup turns are single requests
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
func arrivalOffsets(reqs []workload.Request, l result.LoadPolicy) ([]float64, error) {
	var off []float64
	if l.Mode == result.ModeTrace {
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
		} else if l.Mode == result.ModeTrace && reqs[i].Turn == 0 { // later turns follow their answers (sessions.go)
			return nil, fmt.Errorf("request %q has no arrival_offset_s (trace mode needs one on every request)", reqs[i].ID)
		}
	}
	return off, nil
}
