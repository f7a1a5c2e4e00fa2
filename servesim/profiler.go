package servesim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// The profiler imitates the engine's own profiler endpoints:
//
//   - vLLM (server started with a profiler config): POST /start_profile and
//     POST /stop_profile take no body and answer 200 with an empty body; the
//     stop answers once the trace is written. The trace goes to ProfileDir.
//   - SGLang: POST /start_profile takes an optional JSON ProfileReqInput
//     (output_dir, num_steps, activities, ...) and answers 200
//     "Start profiling."; with num_steps the profiler stops by itself after
//     that many scheduler steps. POST /stop_profile answers 200 "Stop
//     profiling. This will take some time.". The trace goes to output_dir,
//     else ProfileDir.
//
// Either answers 400 to a start while profiling and to a stop while not.
// While profiling, every scheduler step that ends is recorded with its
// cost-model durations; the stop writes them as a PyTorch-profiler trace
// (trace.go).
type profiler struct {
	engine, dir string

	mu        sync.Mutex
	active    bool
	outDir    string
	stepsLeft int // SGLang num_steps still to record; -1: until stopped
	steps     []simStep
	cursor    int64 // end (Unix ns) of the last recorded step's device work
}

// simStep is one scheduler step inside the window. Its device work is
// [Start, Start+Prefill+Decode), Unix ns.
type simStep struct {
	Start           int64
	Prefill, Decode int64 // ns
	Tokens          int64 // tokens emitted at the step's end
}

// serveProfiler registers the profiler endpoints on m when ProfileDir is
// set and returns the profiler (nil otherwise).
func (s *Server) serveProfiler(m *http.ServeMux) *profiler {
	if s.cfg.ProfileDir == "" {
		return nil
	}
	p := &profiler{engine: s.cfg.EngineName, dir: s.cfg.ProfileDir}
	m.HandleFunc("POST /start_profile", p.handleStart)
	m.HandleFunc("POST /stop_profile", p.handleStop)
	return p
}

// sglangProfileReq is the part of SGLang's ProfileReqInput the simulator
// reads.
type sglangProfileReq struct {
	OutputDir  string   `json:"output_dir"`
	NumSteps   *int     `json:"num_steps"`
	Activities []string `json:"activities"`
}

func (p *profiler) handleStart(w http.ResponseWriter, r *http.Request) {
	dir, steps := p.dir, -1
	if p.engine == "sglang" {
		var q sglangProfileReq
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if len(b) > 0 {
			if err := json.Unmarshal(b, &q); err != nil {
				http.Error(w, "invalid profile request: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		if q.OutputDir != "" {
			dir = q.OutputDir
		}
		if q.NumSteps != nil && *q.NumSteps > 0 {
			steps = *q.NumSteps
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active {
		http.Error(w, "profiling is already in progress", http.StatusBadRequest)
		return
	}
	p.active, p.outDir, p.stepsLeft, p.steps, p.cursor = true, dir, steps, nil, 0
	if p.engine == "sglang" {
		io.WriteString(w, "Start profiling.\n")
	}
}

func (p *profiler) handleStop(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	if !p.active {
		p.mu.Unlock()
		http.Error(w, "profiling is not in progress", http.StatusBadRequest)
		return
	}
	steps, dir := p.stop()
	p.mu.Unlock()
	if err := p.write(dir, steps); err != nil {
		http.Error(w, "writing the trace: "+err.Error(), http.StatusInternalServerError)
		return
	}
	if p.engine == "sglang" {
		io.WriteString(w, "Stop profiling. This will take some time.\n")
	}
}

// stop ends the window; p.mu is held.
func (p *profiler) stop() ([]simStep, string) {
	p.active = false
	steps := p.steps
	p.steps = nil
	return steps, p.outDir
}

// write writes one window's trace.
func (p *profiler) write(dir string, steps []simStep) error {
	name := fmt.Sprintf("serve-sim_%d.%d.pt.trace.json.gz", os.Getpid(), time.Now().UnixMilli())
	if p.engine == "sglang" {
		name = strconv.FormatFloat(float64(time.Now().UnixNano())/1e9, 'f', 6, 64) + "-TP-0.trace.json.gz"
	}
	return writeTrace(dir, name, p.engine, steps)
}

// step records one scheduler step that just ended (called by the
// scheduler goroutine): prefill and total are its cost-model durations,
// tokens the tokens it emitted. Steps follow each other on the device:
// one that would start before the previous one's end starts at that end.
func (p *profiler) step(prefill, total time.Duration, tokens int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	start := max(time.Now().UnixNano()-int64(total), p.cursor)
	p.cursor = start + int64(total)
	p.steps = append(p.steps, simStep{Start: start, Prefill: int64(prefill), Decode: int64(total - prefill), Tokens: tokens})
	if p.stepsLeft > 0 {
		p.stepsLeft--
		if p.stepsLeft == 0 {
			// Written off the scheduler goroutine. A write error has no
			// one to answer: the client finds no trace file.
			steps, dir := p.stop()
			go func() { _ = p.write(dir, steps) }()
		}
	}
}
