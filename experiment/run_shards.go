//go:build unix

package experiment

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/shards"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
	"github.com/servecmp/servecmp/internal/interrupt"
	"github.com/servecmp/servecmp/internal/proctree"
)

// ShardsDir is the folder, in a sharded run's step folder, of its
// shards' results, records and logs (shard-I.json, .jsonl, .log).
const ShardsDir = "shards"

// A sharded run (runs.shards N > 1) warms the engine up in this process
// at the whole load, then starts N `servecmp benchmark --shard i/N`
// processes of this very binary (RunOptions.Self) with no warmup of
// their own, each with concurrency/N or rate/N, all starting their
// measured phase at one instant a few seconds ahead (shardLead), and
// merges them into the step's result.json and records.jsonl. Only shard 0
// scrapes the server's metrics (they are server-wide). An interrupt is
// passed on to the shards once per interrupt.

// shardLead is how far ahead the shards' start is set: time for the
// processes to start, read the workload (at 20 MB/s, slow disks
// included) and ask the engine who it is.
func shardLead(workloadPath string) time.Duration {
	lead := 3 * time.Second
	if st, err := os.Stat(workloadPath); err == nil {
		lead += time.Duration(st.Size()/(20<<20)) * time.Second
	}
	return lead
}

// benchShards runs the measured run s from Runs.Shards local processes
// and writes the merged result and records into the step's folder. The
// shards' folder is the run's whole (removed when the step is redone);
// the shards are launched processes like the engines (internal/proctree:
// they never outlive servecmp).
func (r *runner) benchShards(ctx context.Context, s Step) error {
	if r.o.Self == "" {
		return errors.New("runs.shards needs the servecmp binary to start its shards (RunOptions.Self)")
	}
	cfg, err := r.benchConfig(s)
	if err != nil {
		return err
	}
	var warm result.Phase
	if cfg.Load.Warmup > 0 {
		var warns []string
		warm, warns, err = benchmark.Warmup(ctx, cfg)
		if err != nil {
			return fmt.Errorf("engine %s: warmup: %w", s.Side, err)
		}
		for _, w := range warns {
			fmt.Fprintf(r.o.Stderr, "servecmp run: %s: warning: %s\n", s.Name, w)
		}
	}
	rel := s.Name + "/" + ShardsDir
	sub, err := r.st.Out().Sub(rel)
	if err != nil {
		return err
	}
	if err := r.st.Own(rel); err != nil {
		return err
	}
	files, err := r.runShards(ctx, s, cfg, sub, time.Now().Add(shardLead(r.wl.Path)))
	if err != nil {
		return err
	}
	records, err := r.st.Out().Claim(s.Name + "/" + RecordsFile)
	if err != nil {
		return err
	}
	res, err := shards.MergeFiles(files, shards.Options{Records: records})
	if err != nil {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		return fmt.Errorf("engine %s: merging its %d shards: %v", s.Side, r.e.Runs.Shards, err)
	}
	res.Load.Warmup, res.Phases.Warmup = cfg.Load.Warmup, warm
	if err := r.writeJSON(s, ResultFile, res); err != nil {
		return err
	}
	return r.benchOutcome(s, res)
}

// runShards starts the shard processes, waits for them all and returns
// their result and records files. A shard that wrote no result is an
// error quoting the last line of its log.
func (r *runner) runShards(ctx context.Context, s Step, cfg benchmark.Config, sub *atomicfile.Dir, start time.Time) ([]string, error) {
	n := r.e.Runs.Shards
	group := s.Name + "-" + s.Key[:12]
	procs := make([]*exec.Cmd, 0, n)
	var files []string
	for i := range n {
		name := fmt.Sprintf("shard-%d", i)
		base := sub.Join(name)
		log, err := sub.Create(name + ".log")
		if err == nil {
			var c *exec.Cmd
			if c, err = startShard(r.o.Self, shardArgs(cfg, r.wl.Path, i, n, start, group, base), log, r.o.APIKey); err == nil {
				procs = append(procs, c)
			}
		}
		if err != nil {
			killAll(procs)
			return nil, fmt.Errorf("engine %s: shard %d/%d: %v", s.Side, i, n, err)
		}
		files = append(files, base+".json", base+".jsonl")
	}
	stop := forwardInterrupts(ctx, procs)
	defer stop()
	errs := make([]error, n)
	for i, c := range procs {
		errs[i] = waitShard(c)
	}
	for i := range procs {
		if _, err := os.Stat(files[2*i]); err != nil {
			if ctx.Err() != nil {
				return nil, ErrInterrupted
			}
			return nil, fmt.Errorf("engine %s: shard %d/%d wrote no result (%v): %s", s.Side, i, n, errs[i], lastLine(sub.Join(fmt.Sprintf("shard-%d.log", i))))
		}
	}
	return files, nil
}

// startShard starts one shard process, its stdout and stderr in log
// (closed here), as a tree of its own (internal/proctree: its own process
// group, so that a terminal's Ctrl-C reaches it through this process,
// forwardInterrupts, once; the parent-death signal; the third Ctrl-C).
// The API key goes in the shard's environment (OPENAI_API_KEY), never on
// its command line.
func startShard(self string, args []string, log *os.File, apiKey string) (*exec.Cmd, error) {
	defer log.Close()
	c := exec.Command(self, args...)
	c.Stdout, c.Stderr = log, log
	c.Env = os.Environ()
	if apiKey != "" {
		c.Env = append(c.Env, "OPENAI_API_KEY="+apiKey)
	}
	tree := proctree.Prepare(c)
	if err := c.Start(); err != nil {
		return nil, err
	}
	tree.Started(c)
	shardTrees.Store(c, tree)
	return c, nil
}

// shardTrees holds the proctree of each running shard, by command.
var shardTrees sync.Map

// waitShard waits for a shard and unregisters its tree.
func waitShard(c *exec.Cmd) error {
	err := c.Wait()
	if t, ok := shardTrees.LoadAndDelete(c); ok {
		t.(*proctree.Tree).Done()
	}
	return err
}

// killAll ends and reaps the processes started so far.
func killAll(procs []*exec.Cmd) {
	for _, c := range procs {
		_ = c.Process.Kill()
		_ = waitShard(c)
	}
}

// shardArgs is shard i's command line: the step's benchmark settings with
// its share of the load, its files under base, and the start.
func shardArgs(cfg benchmark.Config, wl string, i, n int, start time.Time, group, base string) []string {
	a := []string{"benchmark", "--url", cfg.URL, "--engine", cfg.Engine, "--model", cfg.Model, "--workload", wl,
		"--shard", fmt.Sprintf("%d/%d", i, n), "--start-at", start.UTC().Format(time.RFC3339Nano), "--shard-group", group,
		"--out", base + ".json", "--records", base + ".jsonl", "--progress", "off", "--max-failed-share", "1",
		"--request-timeout", strconv.FormatFloat(cfg.Load.RequestTimeoutS, 'g', -1, 64) + "s", "--metrics-url", "none"}
	if i == 0 && cfg.Metrics.URL != "" {
		a[len(a)-1] = cfg.Metrics.URL // server-wide: one scrape is enough
	}
	switch cfg.Load.Mode {
	case result.ModeConcurrency:
		a = append(a, "--concurrency", strconv.Itoa(cfg.Load.Concurrency/n))
	case result.ModeRate:
		a = append(a, "--rate", strconv.FormatFloat(cfg.Load.Rate/float64(n), 'g', -1, 64))
	} // a trace: every request's own arrival offset, kept by the split
	if cfg.Load.ResetPrefixCache {
		a = append(a, "--reset-prefix-cache")
	}
	if len(cfg.SLO) > 0 {
		a = append(a, "--slo", cfg.SLO.String())
	}
	for _, kv := range cfg.Manifest.Fields {
		a = append(a, "--manifest", kv.Key+"="+kv.Value)
	}
	return a
}

// forwardInterrupts passes an interrupt of ctx on to the processes, and a
// second one (interrupt.Hard) again, until stop is called.
func forwardInterrupts(ctx context.Context, procs []*exec.Cmd) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		signalAll(procs, os.Interrupt)
		select {
		case <-interrupt.Hard(ctx):
			signalAll(procs, os.Interrupt)
		case <-done:
		}
	}()
	return func() { close(done) }
}

// signalAll sends sig to every process (one that has ended ignores it).
func signalAll(procs []*exec.Cmd, sig os.Signal) {
	for _, c := range procs {
		_ = c.Process.Signal(sig)
	}
}

// lastLine is the last non-empty line of a log file, for an error.
func lastLine(path string) string {
	f, err := infile.Open(path)
	if err != nil {
		return "(no log)"
	}
	defer f.Close()
	last := "(empty log: " + path + ")"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = l
		}
	}
	return last
}
