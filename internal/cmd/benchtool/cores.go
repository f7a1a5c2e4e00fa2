//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// limitRatio is the wall ratio on 2 cores that the goal of each export
// (analyzeCase.goal) should in the end come down to.
const limitRatio = 0.5

// coreCounts are the core counts analyze is timed on: GOMAXPROCS=n, and
// the process held to the first n CPUs (taskset) where there are more.
var coreCounts = []int{1, 2}

// coresRun is what the analyze benchmark measured on one export: the
// floor and analyze on each core count (best of benchRepeats, runs
// alternating), and the load average around the runs.
type coresRun struct {
	floor      measure
	floorHow   string
	on         map[int]measure
	how        string
	loadBefore string
	loadAfter  string
}

// measureCores times the floor and `servecmp analyze` on path on each
// core count the machine has, alternating floor and analyze runs so that
// a change of load on a shared machine weighs on all alike. Without the
// built command it times the in-process read instead, on all cores.
func measureCores(path string) (*coresRun, error) {
	r := &coresRun{floor: worst(), on: map[int]measure{}, loadBefore: loadAverage()}
	bin := filepath.Join("bin", "servecmp")
	_, binErr := os.Stat(bin)
	for range benchRepeats {
		f, fh, err := timeFloor(path, 1)
		if err != nil {
			return nil, fmt.Errorf("floor: %w", err)
		}
		r.floor.merge(f)
		r.floorHow = fh
		if binErr != nil {
			a, ah, err := timeAnalyze(path, 1)
			if err != nil {
				return nil, err
			}
			r.merge(runtime.NumCPU(), a)
			r.how = ah
			continue
		}
		for _, n := range coreCounts {
			if n > runtime.NumCPU() {
				continue
			}
			a, err := timeOnCores(n, bin, "analyze", path, "--format", "json")
			if err != nil {
				return nil, err
			}
			r.merge(n, a)
		}
		r.how = "servecmp analyze --format json"
	}
	r.loadAfter = loadAverage()
	return r, nil
}

func (r *coresRun) merge(n int, m measure) {
	old, ok := r.on[n]
	if !ok {
		old = worst()
	}
	old.merge(m)
	r.on[n] = old
}

// print writes the table of one export and its verdict: the wall ratio
// on 2 cores (or the most there are) against c.goal, and the peak RSS.
func (r *coresRun) print(c analyzeCase, size int64) {
	fmt.Printf("analyze benchmark: %s, %.1f MB export, best of %d, %d CPUs, load average %s before, %s after%s\n",
		c.title, float64(size)/1e6, benchRepeats, runtime.NumCPU(), r.loadBefore, r.loadAfter, priorityNote())
	fmt.Printf("%-44s %8s %8s %12s %10s %9s\n", "what", "wall_s", "cpu_s", "peak_rss_MB", "wall_ratio", "cpu_ratio")
	fmt.Printf("%-44s %8.3f %8.3f %12s %10.2f %9.2f\n", "floor: "+r.floorHow, r.floor.wall.Seconds(), r.floor.cpu.Seconds(), "-", 1.0, 1.0)
	goalCores, peak := 0, int64(0)
	for n := 1; n <= runtime.NumCPU(); n++ {
		m, ok := r.on[n]
		if !ok {
			continue
		}
		fmt.Printf("%-44s %8.3f %8.3f %12.1f %10.2f %9.2f\n", fmt.Sprintf("%s, %d %s", r.how, n, plural(n, "core")), m.wall.Seconds(),
			m.cpu.Seconds(), float64(m.rss)/(1<<20), m.wall.Seconds()/r.floor.wall.Seconds(), m.cpu.Seconds()/r.floor.cpu.Seconds())
		if n <= 2 {
			goalCores = n
		}
		peak = max(peak, m.rss)
	}
	m := r.on[goalCores]
	ratio := m.wall.Seconds() / r.floor.wall.Seconds()
	var fails []string
	if ratio > c.goal {
		fails = append(fails, fmt.Sprintf("wall ratio %.2f > %.2f", ratio, c.goal))
	}
	if peak > goalRSSBytes {
		fails = append(fails, fmt.Sprintf("peak RSS %.0f MB > %d MB", float64(peak)/(1<<20), goalRSSBytes>>20))
	}
	verdict := "ok"
	if len(fails) > 0 {
		verdict = "MISSED: " + strings.Join(fails, "; ")
	}
	fmt.Printf("goal: wall ratio on %d %s <= %.2f (limit %.2f), peak RSS <= %d MB: %s\n", goalCores, plural(goalCores, "core"), c.goal, limitRatio, goalRSSBytes>>20, verdict)
}

// prioritized returns the command line that runs name with args: as
// given, or with SERVECMP_BENCH_RT=1 under a real-time priority (chrt -f
// 10; needs the privilege), so that on a shared machine the other
// processes do not weigh on the times. The floor and servecmp run alike.
func prioritized(name string, args ...string) (string, []string) {
	if os.Getenv("SERVECMP_BENCH_RT") != "1" {
		return name, args
	}
	ch, err := exec.LookPath("chrt")
	if err != nil {
		return name, args
	}
	return ch, append([]string{"-f", "10", name}, args...)
}

// priorityNote says how the timed commands ran.
func priorityNote() string {
	if os.Getenv("SERVECMP_BENCH_RT") == "1" {
		if _, err := exec.LookPath("chrt"); err == nil {
			return ", real-time priority (chrt -f 10)"
		}
	}
	return ""
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// timeOnCores runs bin with args once on n cores (GOMAXPROCS=n, and held
// to CPUs 0..n-1 by taskset when the machine has more and taskset is
// there), stdout discarded, and measures it.
func timeOnCores(n int, bin string, args ...string) (measure, error) {
	name, argv := bin, args
	if n < runtime.NumCPU() {
		if ts, err := exec.LookPath("taskset"); err == nil {
			name, argv = ts, append([]string{"-c", fmt.Sprintf("0-%d", n-1), bin}, args...)
		}
	}
	pn, pa := prioritized(name, argv...)
	cmd := exec.Command(pn, pa...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(n))
	var stderr strings.Builder
	cmd.Stderr, cmd.Stdout = &stderr, io.Discard
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return measure{}, fmt.Errorf("%s %s: %v: %s", bin, args[0], err, strings.TrimSpace(stderr.String()))
	}
	m := worst()
	m.add(time.Since(t0), cmd.ProcessState)
	return m, nil
}
