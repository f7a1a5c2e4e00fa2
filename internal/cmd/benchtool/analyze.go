//go:build unix

package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/input"
	"github.com/servecmp/servecmp/internal/interval"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

// Size of the analyze benchmark and its goals.
const (
	benchKernels  = 1_000_000
	benchStreams  = 4
	benchNames    = 3000
	goalRSSBytes  = 150 << 20
	benchRepeats  = 7 // best of
	floorQuerySQL = "select sum(start)+sum(end)+sum(deviceId)+sum(streamId)+sum(globalPid)+sum(demangledName)+sum(gridX)+sum(gridY)+sum(gridZ)+sum(blockX)+sum(blockY)+sum(blockZ) from CUPTI_ACTIVITY_KIND_KERNEL"
)

// analyzeCase is one export the analyze benchmark times.
type analyzeCase struct {
	file  string // file name in the benchmark directory
	title string
	goal  float64 // analyze wall time on 2 cores / SQLite floor
	write func(path string) error
	multi bool // also time multiExports copies in one call against one call each
}

var analyzeCases = []analyzeCase{
	{"bench-1m.sqlite", fmt.Sprintf("%d kernels, %d streams, %d names, no host tables", benchKernels, benchStreams, benchNames),
		0.6, writeBenchExport, false},
	{"serving-1m.sqlite", fmt.Sprintf("serving: %d eager steps (~1M kernels, each with its CUDA API launch), NVTX step ranges", servingSteps),
		0.6, writeServingExport, true},
}

// goalMultiRatio is the most time analyze may take on multiExports
// exports in one call, as a share of one call each.
const goalMultiRatio = 0.52

// multiExports is how many copies of an export the several-inputs line
// gives analyze at once.
const multiExports = 4

// benchAnalyze generates the analyze exports, times the SQLite read floor
// (the kernel columns summed) and `servecmp analyze` on each, and prints a
// table per export to stdout. SERVECMP_BENCH_KEEP=DIR keeps the exports
// in DIR (reused when present).
func benchAnalyze() error {
	dir := os.Getenv("SERVECMP_BENCH_KEEP")
	if dir == "" {
		d, err := os.MkdirTemp("", "servecmp-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	for _, c := range analyzeCases {
		if err := c.run(filepath.Join(dir, c.file)); err != nil {
			return fmt.Errorf("%s: %w", c.file, err)
		}
	}
	return nil
}

// writeCase writes the export of the case named by file to path (the
// child side of analyzeCase.run).
func writeCase(file, path string) error {
	for _, c := range analyzeCases {
		if c.file == file {
			return c.write(path)
		}
	}
	return fmt.Errorf("no analyze case %q", file)
}

func (c analyzeCase) run(path string) error {
	if _, err := os.Stat(path); err != nil {
		// A child writes the export: the generator's memory would
		// otherwise count in the peak RSS of every process started later
		// (Linux charges the parent's high-water mark to a vforked child).
		t0 := time.Now()
		cmd := exec.Command(os.Args[0], "-write", c.file+"="+path)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("writing the export: %w", err)
		}
		fmt.Fprintf(os.Stderr, "benchtool: wrote %s in %.1fs\n", path, time.Since(t0).Seconds())
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	r, err := measureCores(path)
	if err != nil {
		return err
	}
	r.print(c, st.Size())
	if c.multi {
		return benchMulti(path)
	}
	return nil
}

// benchMulti times analyze on multiExports links to path in one call and
// in one call each, alternating, best of benchRepeats, and prints the
// ratio: several inputs at once should use the cores.
func benchMulti(path string) error {
	bin := filepath.Join("bin", "servecmp")
	if _, err := os.Stat(bin); err != nil {
		return nil // timeAnalyze has said so
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), "multi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	links := make([]string, multiExports)
	for i := range links {
		links[i] = filepath.Join(dir, fmt.Sprintf("copy%d.sqlite", i))
		if err := os.Symlink(abs, links[i]); err != nil {
			return err
		}
	}
	one, each := worst(), worst()
	for range benchRepeats {
		m, err := timeCommand(bin, append([]string{"analyze"}, append(links, "--format", "json")...)...)
		if err != nil {
			return err
		}
		one.merge(m)
		sum := measure{}
		for _, l := range links {
			m, err := timeCommand(bin, "analyze", l, "--format", "json")
			if err != nil {
				return err
			}
			sum.wall, sum.cpu, sum.rss = sum.wall+m.wall, sum.cpu+m.cpu, max(sum.rss, m.rss)
		}
		each.merge(sum)
	}
	ratio := one.wall.Seconds() / each.wall.Seconds()
	fmt.Printf("%d exports: one call %.3f s wall, %.3f s cpu, %.1f MB; one call each %.3f s wall, %.3f s cpu: one call takes %.2fx the time\n",
		multiExports, one.wall.Seconds(), one.cpu.Seconds(), float64(one.rss)/(1<<20), each.wall.Seconds(), each.cpu.Seconds(), ratio)
	verdict := "ok"
	if ratio > goalMultiRatio {
		verdict = fmt.Sprintf("MISSED: %.2f > %.2f", ratio, goalMultiRatio)
	}
	fmt.Printf("goal: several exports in one call <= %.2fx the time of one call each: %s\n", goalMultiRatio, verdict)
	return nil
}

// timeCommand runs bin with args once, stdout discarded, and measures it.
func timeCommand(bin string, args ...string) (measure, error) {
	pn, pa := prioritized(bin, args...)
	cmd := exec.Command(pn, pa...)
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

// loadAverage returns the 1, 5 and 15 minute load averages, or "?".
func loadAverage() string {
	load, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(load))
	return strings.Join(f[:min(3, len(f))], " ")
}

// benchKernelNames returns benchNames distinct, realistic kernel names:
// the names of ../shared/docs/kernel-names.tsv (column 1) when that file
// is present, widened with template-argument variants.
func benchKernelNames() []string {
	var base []string
	for _, p := range []string{"../shared/docs/kernel-names.tsv", "../../shared/docs/kernel-names.tsv"} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for first := true; sc.Scan(); first = false {
			name, _, _ := strings.Cut(sc.Text(), "\t")
			if first || name == "" || strings.HasPrefix(name, "[") {
				continue
			}
			base = append(base, name)
		}
		f.Close()
		break
	}
	if len(base) == 0 {
		base = []string{
			"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
			"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
			"flash_fwd_splitkv_kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
			"void vllm::rms_norm_kernel<c10::BFloat16, 8, 3>(c10::BFloat16*, long, long, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)",
			"void vllm::act_and_mul_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, int)",
			"nvjet_tst_192x8_64x8_4x1_v_bz_TNT", "triton_poi_fused_add_mul_0", "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)",
		}
	}
	names := make([]string, 0, benchNames)
	seen := map[string]bool{}
	for i := 0; len(names) < benchNames; i++ {
		b := base[i%len(base)]
		n := b
		if v := i / len(base); v > 0 {
			n = fmt.Sprintf("%s<%d, %d>", b, 64<<(v%4), v)
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

// writeBenchExport writes the benchmark export: one process on device 0,
// kernels on benchStreams streams that overlap, a skewed name mix.
func writeBenchExport(path string) error {
	names := benchKernelNames()
	b := nsystest.New(nsystest.Schema2024)
	b.HighBits(0) // the floor query sums globalPid; real high bits would overflow it
	b.Process(4242, "python3")
	b.GPU(0, "NVIDIA H100 80GB HBM3")
	b.Host("bench-node")
	b.Env("RANK", "0")
	b.GraphTraceMode("Node")
	r := rand.New(rand.NewPCG(1, 2))
	shapes := make([][2][3]int32, 64)
	for i := range shapes {
		shapes[i] = [2][3]int32{{int32(1 + r.IntN(4096)), int32(1 + r.IntN(8)), 1}, {int32(32 << r.IntN(5)), 1, 1}}
	}
	var cursor [benchStreams]int64
	for s := range cursor {
		cursor[s] = 1_000_000 + int64(s)*3_000
	}
	b.Kernels(benchKernels, func(i int) nsystest.K {
		// stream 0 carries most work; side streams overlap with it
		s := 0
		if x := r.IntN(10); x >= 7 {
			s = x - 6
		}
		dur := int64(1_000 + r.IntN(40_000))
		start := cursor[s] + int64(r.IntN(4_000))
		cursor[s] = start + dur
		n := int(r.ExpFloat64() * benchNames / 8)
		sh := shapes[r.IntN(len(shapes))]
		return nsystest.K{PID: 4242, TID: 4243, Stream: int32(7 + s), Start: start, End: start + dur,
			Name: names[n%len(names)], Grid: sh[0], Block: sh[1]}
	})
	return b.WriteFile(path)
}

// timeFloor times the reference query with the sqlite3 CLI, best of
// repeats; without the CLI it runs the same query through the Go
// driver in this process and says so.
func timeFloor(path string, repeats int) (measure, string, error) {
	best := worst()
	if cli, err := exec.LookPath("sqlite3"); err == nil {
		for range repeats {
			pn, pa := prioritized(cli, path, floorQuerySQL)
			cmd := exec.Command(pn, pa...)
			cmd.Stderr = os.Stderr
			cmd.Stdout = io.Discard
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				return measure{}, "", err
			}
			best.add(time.Since(t0), cmd.ProcessState)
		}
		return best, "sqlite3 CLI sum query", nil
	}
	fmt.Fprintln(os.Stderr, "benchtool: no sqlite3 CLI on PATH; timing the floor query through the Go driver")
	dsn, err := input.DSN(path)
	if err != nil {
		return measure{}, "", err
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return measure{}, "", err
	}
	defer db.Close()
	for range repeats {
		var sum int64
		t0, c0 := time.Now(), selfCPU()
		if err := db.QueryRow(floorQuerySQL).Scan(&sum); err != nil {
			return measure{}, "", err
		}
		best.wall = min(best.wall, time.Since(t0))
		best.cpu = min(best.cpu, selfCPU()-c0)
	}
	return best, "Go driver sum query (no sqlite3 CLI)", nil
}

// measure is the best wall time and best CPU time (user+system) over
// repeats, and the largest peak RSS seen.
type measure struct {
	wall, cpu time.Duration
	rss       int64
}

// worst is the measure before any repeat.
func worst() measure {
	return measure{wall: time.Duration(math.MaxInt64), cpu: time.Duration(math.MaxInt64)}
}

// merge keeps the best times and the largest peak RSS of m and o.
func (m *measure) merge(o measure) {
	m.wall, m.cpu, m.rss = min(m.wall, o.wall), min(m.cpu, o.cpu), max(m.rss, o.rss)
}

func (m *measure) add(wall time.Duration, ps *os.ProcessState) {
	m.wall = min(m.wall, wall)
	m.cpu = min(m.cpu, ps.UserTime()+ps.SystemTime())
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		m.rss = max(m.rss, maxrssBytes(ru.Maxrss))
	}
}

// maxrssBytes converts getrusage's ru_maxrss to bytes: macOS reports
// bytes, Linux and the BSDs KiB.
func maxrssBytes(v int64) int64 {
	if runtime.GOOS == "darwin" {
		return v
	}
	return v * 1024
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timeAnalyze times `bin/servecmp analyze FILE --format json > /dev/null`,
// best of repeats, with the child's peak RSS. When the command is not
// usable it times input.Open plus a per-rank busy-time union in this
// process instead, and says so.
func timeAnalyze(path string, repeats int) (measure, string, error) {
	bin := filepath.Join("bin", "servecmp")
	if _, err := os.Stat(bin); err == nil {
		best := worst()
		var runErr error
		for range repeats {
			cmd := exec.Command(bin, "analyze", path, "--format", "json")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			cmd.Stdout = io.Discard
			t0 := time.Now()
			err := cmd.Run()
			el := time.Since(t0)
			if err != nil {
				runErr = fmt.Errorf("%s analyze: %v: %s", bin, err, strings.TrimSpace(stderr.String()))
				break
			}
			best.add(el, cmd.ProcessState)
		}
		if runErr == nil {
			return best, "servecmp analyze --format json", nil
		}
		fmt.Fprintf(os.Stderr, "benchtool: %v\nbenchtool: timing input.Open + busy union in-process instead\n", runErr)
	} else {
		fmt.Fprintf(os.Stderr, "benchtool: %s not built (make build); timing input.Open + busy union in-process instead\n", bin)
	}
	best := worst()
	for range repeats {
		runtime.GC()
		t0, c0 := time.Now(), selfCPU()
		c, err := input.Open(context.Background(), path, event.All)
		if err != nil {
			return measure{}, "", err
		}
		for _, r := range c.Ranks {
			ivs := make([]interval.Interval, len(r.Work))
			for i, w := range r.Work {
				ivs[i] = interval.Interval{Start: w.Start, End: w.End}
			}
			_ = interval.Len(interval.Union(ivs))
		}
		best.wall = min(best.wall, time.Since(t0))
		best.cpu = min(best.cpu, selfCPU()-c0)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	best.rss = maxrssBytes(ru.Maxrss)
	return best, "in-process input.Open + union (no CLI)", nil
}
