package calibrate

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/experiment"
	"github.com/servecmp/servecmp/internal/atomicfile"
)

// This file is the simulated world: two serving systems whose requests
// share a per-run level (warm-up, caches, clocks, background load), with
// per-request noise on top, measured run by run and written as benchmark
// writes its results and records.

// World describes the systems and how they are measured.
type World struct {
	// Runs is the number of runs per side.
	Runs int
	// Order is the order the runs are made in: the sides of the runs, first
	// to last ("a" or "b"). Nil: the order Interleaved gives.
	Order []string
	// Spread is the run-to-run standard deviation of a run's level, on the
	// log scale (0.02 ≈ 2%).
	Spread float64
	// HeavyTails draws the run effects from Student's t with 3 degrees of
	// freedom, scaled to the same standard deviation, instead of a normal.
	HeavyTails bool
	// Drift is a linear change of the level over the whole experiment, on
	// the log scale: the last run is exp(Drift) times the first.
	Drift float64
	// TTFTEffect is B's time to first token relative to A's, minus one
	// (0.2: B's TTFT is 20% longer); decode speed is the same.
	TTFTEffect float64
	// Requests is the number of measured requests per run; Concurrency the
	// closed-loop concurrency they are sent with.
	Requests, Concurrency int
}

// Simulation constants: A's typical request (the median TTFT and time per
// output token, ms) and the request-to-request noise (log-scale standard
// deviations of a request's TTFT, its decode speed, and a gap).
const (
	baseTTFT  = 100.0
	baseTPOT  = 20.0
	sdTTFT    = 0.3
	sdTPOT    = 0.1
	sdGap     = 0.2
	promptLen = 256
	minOutput = 4 // output tokens of the shortest request
	outRange  = 9 // output tokens vary over minOutput … minOutput+outRange−1
)

// SLO is the objective every simulated comparison holds both sides to.
var SLO = result.SLO{{Metric: "ttft_ms", LimitMs: 150}}

// workloadSHA is the simulated workload's identity, shared by every run.
const workloadSHA = "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed"

// Interleaved is the order servecmp run makes interleaved runs in
// (experiment.RunSides): A B, B A, A B, … .
func Interleaved(n int) []string {
	return experiment.RunSides(experiment.Runs{Count: n, Order: experiment.OrderInterleaved})
}

// AFirst is the order of interleaved runs that always start a pair with A.
func AFirst(n int) []string {
	var out []string
	for range n {
		out = append(out, "a", "b")
	}
	return out
}

// Blocked is every run of A, then every run of B.
func Blocked(n int) []string {
	var out []string
	for _, s := range []string{"a", "b"} {
		for range n {
			out = append(out, s)
		}
	}
	return out
}

// Files are the result and records files of one comparison, per side.
type Files struct {
	A, B               []string
	RecordsA, RecordsB []string
}

// t0 is when every simulated experiment starts; runs are ten minutes apart.
var t0 = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

// Write simulates one experiment of w in dir and writes each run's result
// and records files as benchmark does. tag makes the run ids unique.
func (w World) Write(dir string, rng *rand.Rand, tag string) (Files, error) {
	order := w.Order
	if order == nil {
		order = Interleaved(w.Runs)
	}
	var f Files
	seen := map[string]int{}
	for pos, side := range order {
		seen[side]++
		level := w.runEffect(rng) + w.Drift*float64(pos)/math.Max(1, float64(len(order)-1))
		ttft := 1.0
		if side == "b" {
			ttft += w.TTFTEffect
		}
		id := fmt.Sprintf("%s-%s%d", tag, side, seen[side])
		res, recs := w.run(rng, id, math.Exp(level), ttft, t0.Add(time.Duration(pos)*10*time.Minute))
		resPath := filepath.Join(dir, id+".json")
		recPath := filepath.Join(dir, id+".records.jsonl")
		if err := result.WriteResult(resPath, nil, res); err != nil {
			return f, err
		}
		if err := writeRecords(recPath, recs); err != nil {
			return f, err
		}
		if side == "a" {
			f.A, f.RecordsA = append(f.A, resPath), append(f.RecordsA, recPath)
		} else {
			f.B, f.RecordsB = append(f.B, resPath), append(f.RecordsB, recPath)
		}
	}
	return f, nil
}

// runEffect draws a run's log level: normal, or Student t(3) scaled to
// the same standard deviation.
func (w World) runEffect(rng *rand.Rand) float64 {
	if !w.HeavyTails {
		return w.Spread * rng.NormFloat64()
	}
	var chi float64
	for range 3 {
		z := rng.NormFloat64()
		chi += z * z
	}
	// t(3) has variance 3; divide by √3 for a unit standard deviation.
	return w.Spread * rng.NormFloat64() / math.Sqrt(chi/3) / math.Sqrt(3)
}

// run simulates one run: requests sent in a closed loop at w.Concurrency,
// each TTFT and gap scaled by the run's level (and TTFT by ttft).
func (w World) run(rng *rand.Rand, id string, level, ttft float64, start time.Time) (*result.Result, []result.Record) {
	slots := make([]float64, max(1, w.Concurrency)) // when each slot is free, s
	recs := make([]result.Record, w.Requests)
	for i := range recs {
		k := 0
		for j := range slots {
			if slots[j] < slots[k] {
				k = j
			}
		}
		r := &recs[i]
		out := minOutput + (i*7)%outRange
		first := baseTTFT * level * ttft * math.Exp(sdTTFT*rng.NormFloat64())
		tpot := baseTPOT * level * math.Exp(sdTPOT*rng.NormFloat64())
		r.ChunkTimesMs = make([]float64, out)
		r.ChunkTokens = make([]int, out)
		at := first
		for c := range out {
			if c > 0 {
				at += tpot * math.Exp(sdGap*rng.NormFloat64()-sdGap*sdGap/2)
			}
			r.ChunkTimesMs[c], r.ChunkTokens[c] = at, 1
		}
		r.RunID, r.WorkloadSHA256, r.ID, r.OK = id, workloadSHA, fmt.Sprintf("req-%d", i), true
		r.ScheduledS, r.SentS = slots[k], slots[k]
		r.TTFTMs, r.E2EMs, r.DoneMs = first, at, at
		r.PromptTokens, r.CompletionTokens, r.RequestedTokens = promptLen, out, out
		r.UsageReported, r.FinishReason = true, "length"
		slots[k] += at / 1000
	}
	sum := result.NewSummary(recs, 0, true)
	res := &result.Result{
		Schema:    result.Schema,
		RunID:     id,
		Manifest:  result.Manifest{Engine: "sim", Model: "sim-model", LoadPolicy: "concurrency", GPUType: "H100", GPUCount: 1},
		Workload:  result.WorkloadInfo{Path: "workload.jsonl", SHA256: workloadSHA, Count: w.Requests},
		Load:      result.LoadPolicy{Mode: "concurrency", Concurrency: w.Concurrency, Drain: "wait", Requests: w.Requests},
		Summary:   sum,
		StartedAt: start,
		EndedAt:   start.Add(time.Duration(sum.DurationS * float64(time.Second))),
	}
	return res, recs
}

// writeRecords writes recs as a records.jsonl file, one line each, as
// benchmark --records does.
func writeRecords(path string, recs []result.Record) error {
	return atomicfile.WriteFunc(path, func(w io.Writer) error {
		rw := result.NewRecordWriter(w)
		for i := range recs {
			if err := rw.Write(&recs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// tempDir makes a folder for one comparison's files under dir.
func tempDir(dir string) (string, func(), error) {
	d, err := os.MkdirTemp(dir, "cmp-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { _ = os.RemoveAll(d) }, nil
}
