//go:build unix

package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/rules"
)

// Size of the merge benchmark and its goal: mergeRanks saved one-rank
// summaries, each with mergeNames unmapped names and mergeShapes shapes
// (what a rank of a large serving job carries), merged for display with
// the default --top 10 and with --save (every list whole).
const (
	mergeRanks      = 1024
	mergeNames      = 400
	mergeShapes     = 200
	goalMergeRSS    = 100 << 20
	mergeDisplayTop = 10
)

// benchMerge writes the summaries (SERVECMP_BENCH_KEEP=DIR keeps them)
// and times `servecmp merge` on them, best of benchRepeats.
func benchMerge() error {
	bin := filepath.Join("bin", "servecmp")
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s not built (make build)", bin)
	}
	dir := os.Getenv("SERVECMP_BENCH_KEEP")
	if dir == "" {
		d, err := os.MkdirTemp("", "servecmp-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	dir = filepath.Join(dir, "merge-summaries")
	paths, size, err := writeSummaries(dir)
	if err != nil {
		return err
	}
	save := filepath.Join(os.TempDir(), fmt.Sprintf("servecmp-merge-bench-%d.json", os.Getpid()))
	defer os.Remove(save)
	display, whole := worst(), worst()
	for range benchRepeats {
		m, err := timeOnCores(runtime.NumCPU(), bin, append([]string{"merge", "--format", "json"}, paths...)...)
		if err != nil {
			return err
		}
		display.merge(m)
		os.Remove(save)
		m, err = timeOnCores(runtime.NumCPU(), bin, append([]string{"merge", "--format", "json", "--save", save}, paths...)...)
		if err != nil {
			return err
		}
		whole.merge(m)
	}
	fmt.Printf("merge benchmark: %d saved one-rank summaries (%d unmapped names, %d shapes each), %.1f MB in all, best of %d, load average %s%s\n",
		mergeRanks, mergeNames, mergeShapes, float64(size)/1e6, benchRepeats, loadAverage(), priorityNote())
	fmt.Printf("%-44s %8s %8s %12s\n", "what", "wall_s", "cpu_s", "peak_rss_MB")
	for _, r := range []struct {
		what string
		m    measure
	}{{fmt.Sprintf("servecmp merge --format json (--top %d)", mergeDisplayTop), display}, {"servecmp merge --format json --save FILE", whole}} {
		fmt.Printf("%-44s %8.3f %8.3f %12.1f\n", r.what, r.m.wall.Seconds(), r.m.cpu.Seconds(), float64(r.m.rss)/(1<<20))
	}
	verdict := "ok"
	if display.rss > goalMergeRSS {
		verdict = fmt.Sprintf("MISSED: %.0f MB", float64(display.rss)/(1<<20))
	}
	fmt.Printf("goal: merge of %d summaries for display in <= %d MB peak RSS (the inputs are read one at a time): %s\n",
		mergeRanks, goalMergeRSS>>20, verdict)
	return nil
}

// writeSummaries writes the benchmark's summaries under dir (reused
// when all are there) and returns their paths and total size.
func writeSummaries(dir string) ([]string, int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	rng := rand.New(rand.NewPCG(3, 5))
	var paths []string
	var size int64
	for i := range mergeRanks {
		p := filepath.Join(dir, fmt.Sprintf("rank%04d.json", i))
		paths = append(paths, p)
		if st, err := os.Stat(p); err == nil {
			size += st.Size()
			continue
		}
		rep, err := classify.NewReport("bench-rules", []*classify.RankSummary{benchRank(i, rng)})
		if err != nil {
			return nil, 0, err
		}
		if err := writeSummary(p, rep); err != nil {
			return nil, 0, err
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, 0, err
		}
		size += st.Size()
	}
	return paths, size, nil
}

func writeSummary(path string, rep *classify.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := rep.WriteSummary(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchRank returns rank i of a generated 1,024-GPU job: its own busy
// profile, mergeNames unmapped names, mergeShapes shapes over the regions.
func benchRank(i int, rng *rand.Rand) *classify.RankSummary {
	window := int64(30_000_000_000)
	s := &classify.RankSummary{Rank: fmt.Sprint(i), Source: fmt.Sprintf("/scratch/job/rank%04d.sqlite", i), Format: "nsys",
		Device: int32(i % 8), PID: int64(1000 + i/8), GPU: "NVIDIA H100 80GB HBM3", Host: fmt.Sprintf("node%03d", i/8),
		ToolVersion: "2024.6.2.25", WindowEndNs: window, WindowNs: window, WindowFrom: "capture",
		Work: &classify.Work{Requests: 4096, OutputTokens: 1 << 20}}
	for _, r := range rules.Regions {
		b := 1_000_000_000 + rng.Int64N(5_000_000_000)
		s.Regions = append(s.Regions, classify.RegionSummary{Region: r.String(), Count: 10_000 + rng.Int64N(90_000), SumNs: b + rng.Int64N(b/4), BusyNs: b})
		s.DeviceWorkBusyNs += b
		s.DeviceWork += s.Regions[len(s.Regions)-1].Count
		if r == rules.Communication {
			s.CommBusyNs = b
		}
	}
	s.DeviceWorkSumNs = s.DeviceWorkBusyNs + s.DeviceWorkBusyNs/5
	s.NonCommBusyNs = s.DeviceWorkBusyNs - s.CommBusyNs
	s.Kernels, s.KernelSumNs, s.KernelBusyNs = s.DeviceWork, s.DeviceWorkSumNs, s.DeviceWorkBusyNs
	s.Coverage.ByMethod = []classify.MethodStat{{Method: classify.ByName.String(), Count: s.DeviceWork / 2, SumNs: s.DeviceWorkSumNs / 2},
		{Method: classify.Unmapped.String(), Count: s.DeviceWork - s.DeviceWork/2, SumNs: s.DeviceWorkSumNs - s.DeviceWorkSumNs/2}}
	for j := range mergeNames {
		s.UnmappedTop = append(s.UnmappedTop, classify.NameStat{
			Name:  fmt.Sprintf("void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_%dx%d_32x3_nn_align8>(Params)", 64<<(j%4), j),
			Count: 1 + rng.Int64N(10_000), SumNs: rng.Int64N(100_000_000)})
	}
	for j := range mergeShapes {
		s.Shapes = append(s.Shapes, classify.ShapeStat{Region: rules.Regions[j%len(rules.Regions)].String(),
			Grid: [3]int32{int32(1 + j), int32(1 + j%3), 1}, Block: [3]int32{128, 1, 1}, Count: 1 + rng.Int64N(10_000), SumNs: rng.Int64N(100_000_000)})
	}
	s.Warnings = []string{fmt.Sprintf("rank %d: hint: capture with --cuda-graph-trace=node", i)}
	return s
}
