//go:build unix

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/servesim"
)

// Goals of the client benchmark: the client must never be the bottleneck.
const (
	goalStreams     = 2000
	goalChunksPerS  = 50_000
	goalOverheadP99 = time.Millisecond
)

// clientCase is one load shape run against its own in-process serve-sim.
type clientCase struct {
	name        string
	concurrency int
	requests    int
	tokens      int           // output tokens per request (one per chunk)
	step        time.Duration // serve-sim decode step (0: no delay at all)
}

// benchClient runs the streaming client against in-process serve-sims
// (which share the CPUs with the client) and prints concurrent streams
// sustained, SSE chunks/s and the client's own added latency per read
// (read returned → its last chunk recorded).
func benchClient() error {
	raiseFileLimit()
	fmt.Printf("client benchmark: in-process serve-sim (sharing the CPUs), GOMAXPROCS=%d\n", runtime.GOMAXPROCS(0))
	fmt.Printf("%-11s %5s %5s %6s %7s %7s %10s %9s %6s %10s %10s %9s\n",
		"case", "conc", "reqs", "step", "chunks", "wall_s", "chunks/s", "max_inflt", "failed", "ovh_p50_us", "ovh_p99_us", "allocs/ch")
	var fails []string
	for _, cc := range []clientCase{
		// Long-lived streams: every request stays open for 40 steps of
		// 50 ms, so all of them must be in flight at once.
		{"streams", goalStreams, goalStreams, 40, 50 * time.Millisecond},
		// Raw chunk rate: a server with no delay at all.
		{"throughput", 64, 512, 512, 0},
		// Paced tokens (one chunk per read), where the added latency per
		// chunk is what a real run sees.
		{"paced", 32, 256, 128, 5 * time.Millisecond},
	} {
		r, err := runClientCase(cc)
		if err != nil {
			return fmt.Errorf("%s: %w", cc.name, err)
		}
		fmt.Printf("%-11s %5d %5d %6s %7d %7.2f %10.0f %9d %6d %10.1f %10.1f %9.1f\n", cc.name, cc.concurrency, cc.requests, cc.step,
			r.chunks, r.wall.Seconds(), r.chunksPerS, r.maxInFlight, r.failed, us(r.ovP50), us(r.ovP99), r.allocsPerChunk)
		if r.failed > 0 {
			fails = append(fails, fmt.Sprintf("%s: %d requests failed", cc.name, r.failed))
		}
		switch cc.name {
		case "streams":
			if r.maxInFlight < goalStreams {
				fails = append(fails, fmt.Sprintf("only %d concurrent streams < %d", r.maxInFlight, goalStreams))
			}
		case "throughput":
			if r.chunksPerS < goalChunksPerS {
				fails = append(fails, fmt.Sprintf("%.0f chunks/s < %d", r.chunksPerS, goalChunksPerS))
			}
		}
		if cc.name == "paced" && r.ovP99 >= goalOverheadP99 {
			fails = append(fails, fmt.Sprintf("%s: overhead p99 %.0f µs >= %v", cc.name, us(r.ovP99), goalOverheadP99))
		}
	}
	verdict := "met"
	if len(fails) > 0 {
		verdict = "MISSED: " + strings.Join(fails, "; ")
	}
	fmt.Printf("goal: %d concurrent streams, >= %d chunks/s, overhead p99 < %v: %s\n", goalStreams, goalChunksPerS, goalOverheadP99, verdict)
	fmt.Println("(allocs/ch counts the in-process server's allocations too)")
	return nil
}

type clientResult struct {
	chunks         int64
	wall           time.Duration
	chunksPerS     float64
	maxInFlight    int
	failed         int
	ovP50, ovP99   time.Duration
	allocsPerChunk float64
}

func runClientCase(cc clientCase) (clientResult, error) {
	sim := servesim.New(servesim.Config{EOSProb: -1, MaxRunning: 4096, KVCacheTokens: 1 << 24, DecodeBase: cc.step})
	defer sim.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return clientResult{}, err
	}
	srv := &http.Server{Handler: sim}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	temp := 0.0
	w := &workload.Workload{Path: "bench:" + cc.name, SHA256: "-"}
	for i := range cc.requests {
		w.Requests = append(w.Requests, workload.Request{
			ID: fmt.Sprintf("%s-%d", cc.name, i), PromptTokens: []int{1, 2, 3, 4, 5, 6, 7, i + 8}, InputLen: 8,
			MaxTokens: cc.tokens, FixedLength: true, Sampling: workload.Sampling{Temperature: &temp},
		})
	}
	var probe overheadProbe
	c := client.New(client.Options{BaseURL: url, Conns: cc.concurrency, OnContentRead: probe.add})
	defer c.Close()
	var chunks int64
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	t0 := time.Now()
	res, err := benchmark.Run(context.Background(), benchmark.Config{
		Client: c, Engine: "vllm", Model: "sim-model", Workload: w,
		Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: cc.concurrency},
		OnRecord: func(r *result.Record) error {
			chunks += int64(len(r.ChunkTimesMs))
			return nil
		},
	})
	wall := time.Since(t0)
	runtime.ReadMemStats(&ms1)
	if err != nil {
		return clientResult{}, err
	}
	ov := probe.sorted()
	q := func(p float64) time.Duration {
		if len(ov) == 0 {
			return 0
		}
		return ov[min(len(ov)-1, int(p*float64(len(ov))))]
	}
	r := clientResult{
		chunks: chunks, wall: wall, maxInFlight: res.Summary.Concurrency.Max,
		failed: res.Summary.RequestsFailed + res.Summary.RequestsCancelled, ovP50: q(0.5), ovP99: q(0.99),
	}
	// Chunks per second over the measured run, from its first send to the
	// end of its last request.
	if d := res.Summary.DurationS; d > 0 {
		r.chunksPerS = float64(chunks) / d
	}
	if chunks > 0 {
		r.allocsPerChunk = float64(ms1.Mallocs-ms0.Mallocs) / float64(chunks)
	}
	return r, nil
}

// overheadProbe collects the client's per-read added latency (read
// returned → its last chunk recorded) from every stream.
type overheadProbe struct {
	mu sync.Mutex
	ds []time.Duration
}

func (p *overheadProbe) add(d time.Duration) {
	p.mu.Lock()
	p.ds = append(p.ds, d)
	p.mu.Unlock()
}

// sorted returns the overheads recorded so far in increasing order.
func (p *overheadProbe) sorted() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	ds := slices.Clone(p.ds)
	slices.Sort(ds)
	return ds
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// raiseFileLimit lifts the soft open-file limit to the hard one: 2,000
// streams need 4,000 sockets in one process (client and server ends).
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}
