package nsys

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

// openRO opens path the way package input does: read-only, immutable,
// one connection per goroutine.
func openRO(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1&_mutex=no")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func read(t testing.TB, path string, opts event.Options) *event.Capture {
	t.Helper()
	c, err := ReadWith(context.Background(), openRO(t, path), path, opts, Config{File: path})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return c
}

func names(c *event.Capture, ws []event.Work) []string {
	var out []string
	for _, w := range ws {
		out = append(out, c.Names.Name(w.Name))
	}
	slices.Sort(out)
	return out
}

func rankOf(t *testing.T, c *event.Capture, pid int64, dev int32) *event.Rank {
	t.Helper()
	for _, r := range c.Ranks {
		if r.PID == pid && r.Device == dev {
			return r
		}
	}
	t.Fatalf("no rank %d/%d", pid, dev)
	return nil
}

// multi builds a two-process, three-rank export for schema s.
func multi(s nsystest.Schema) *nsystest.Builder {
	b := nsystest.New(s)
	b.Process(100, "python3")
	b.Process(200, "worker")
	b.Process(999, "sshd") // unrelated host process, as real exports list
	b.GPU(0, "NVIDIA H100 80GB HBM3")
	b.GPU(1, "NVIDIA H200")
	b.GPU(2, "NVIDIA A100-SXM4-80GB") // listed, never used
	b.Host("node7")
	b.Env("RANK", "5")
	b.GraphTraceMode("Node")
	gemm := "void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_128x128_32x4_nn_align8>(Params)"
	// pid 100, device 0: two streams that overlap
	b.Kernel(nsystest.K{PID: 100, TID: 101, Device: 0, Stream: 7, Start: 1_000, End: 5_000, Name: gemm, Grid: [3]int32{132, 1, 1}, Block: [3]int32{256, 1, 1}})
	b.Kernel(nsystest.K{PID: 100, TID: 101, Device: 0, Stream: 13, Start: 3_000, End: 9_000, Name: "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"})
	b.Kernel(nsystest.K{PID: 100, TID: 101, Device: 0, Stream: 7, Start: 6_000, End: 7_000, Name: gemm, Grid: [3]int32{132, 1, 1}, Block: [3]int32{256, 1, 1}})
	// pid 100, device 1
	b.Kernel(nsystest.K{PID: 100, TID: 102, Device: 1, Stream: 7, Start: 2_000, End: 4_000, Name: "flash_fwd_kernel", Driver: true})
	// pid 200, device 0: a graph replay traced per node (one launch row)
	b.Kernel(nsystest.K{PID: 200, Device: 0, Stream: 3, Start: 10_000, End: 11_000, Name: "rms_norm_kernel", GraphNode: 41, Corr: 77})
	b.Kernel(nsystest.K{PID: 200, Device: 0, Stream: 3, Start: 11_000, End: 12_500, Name: "act_and_mul_kernel", GraphNode: 42, Corr: 77})
	b.GraphNodeEvent(200, 200, 41, 21, 500, 600)
	b.GraphNodeEvent(200, 200, 42, 22, 600, 700)
	b.Memcpy(nsystest.M{PID: 100, Device: 0, Stream: 7, Start: 500, End: 900, CopyKind: 1})
	b.Memcpy(nsystest.M{PID: 200, Device: 0, Stream: 3, Start: 13_000, End: 14_000, CopyKind: 2})
	b.Memset(nsystest.M{PID: 100, Device: 1, Stream: 7, Start: 1_500, End: 1_600})
	b.NVTX(100, 101, 800, 9_500, "forward")
	b.NVTXEvent(nsystest.N{PID: 100, TID: 101, Start: 900, End: 5_500, Text: "layer 0", Registered: true})
	b.NVTXEvent(nsystest.N{PID: 200, TID: 200, Start: 9_000, End: 13_000, Type: 60, Text: "decode step"})
	b.NVTXEvent(nsystest.N{PID: 200, TID: 200, Start: 9_100, Type: 34, Text: "a mark, not a range"})
	b.Launch(nsystest.L{PID: 100, TID: 101, Start: 100, End: 200, Name: "cudaStreamSynchronize_v3020"})
	return b
}

func TestReadSchemas(t *testing.T) {
	for _, s := range []nsystest.Schema{nsystest.Schema2021, nsystest.Schema2022, nsystest.Schema2024} {
		t.Run(s.String(), func(t *testing.T) {
			path := multi(s).Write(t)
			c := read(t, path, event.All)
			if c.Format != "nsys" || c.Path != path {
				t.Errorf("format/path = %q %q", c.Format, c.Path)
			}
			if len(c.Ranks) != 3 {
				t.Fatalf("ranks = %d, want 3", len(c.Ranks))
			}
			wantVersion, wantHost, wantMode, wantProc := "", "", "", ""
			switch s {
			case nsystest.Schema2022:
				wantVersion, wantHost, wantProc = "2022.4.2.1", "node7", "python3"
			case nsystest.Schema2024:
				wantVersion, wantHost, wantMode, wantProc = "2024.6.2.25", "node7", "node", "python3"
			}
			if c.ToolVersion != wantVersion || c.Host != wantHost || c.GraphTraceMode != wantMode {
				t.Errorf("version %q host %q mode %q, want %q %q %q", c.ToolVersion, c.Host, c.GraphTraceMode, wantVersion, wantHost, wantMode)
			}
			if len(c.Warnings) != 0 {
				t.Errorf("warnings: %q", c.Warnings)
			}

			r0 := rankOf(t, c, 100, 0)
			r1 := rankOf(t, c, 100, 1)
			r2 := rankOf(t, c, 200, 0)
			if r0.GPU != "NVIDIA H100 80GB HBM3" || r1.GPU != "NVIDIA H200" || r2.GPU != "NVIDIA H100 80GB HBM3" {
				t.Errorf("GPUs %q %q %q", r0.GPU, r1.GPU, r2.GPU)
			}
			if r0.Process != wantProc || r0.ToolVersion != wantVersion || r0.Host != wantHost {
				t.Errorf("rank meta %q %q %q", r0.Process, r0.ToolVersion, r0.Host)
			}
			// the reader records the captured rank and sets no labels
			if r0.Label != "" || r0.LabelFrom != "" || r2.Label != "" || (c.Env["RANK"] != "" && c.CapturedRankFrom != "env:RANK") {
				t.Errorf("labels %q (%s) %q, captured rank %q from %q", r0.Label, r0.LabelFrom, r2.Label, c.CapturedRank, c.CapturedRankFrom)
			}
			for _, r := range c.Ranks {
				if r.Source != path || r.Format != "nsys" || r.Names != c.Names || r.Shapes != c.Shapes {
					t.Errorf("rank %d/%d: source/format/tables not set", r.PID, r.Device)
				}
			}

			gemm := "void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_128x128_32x4_nn_align8>(Params)"
			want0 := []string{"[CUDA memcpy Host-to-Device]", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", gemm, gemm}
			slices.Sort(want0)
			if got := names(c, r0.Work); !slices.Equal(got, want0) {
				t.Errorf("rank 100/0 work %q, want %q", got, want0)
			}
			if got := names(c, r1.Work); !slices.Equal(got, []string{"[CUDA memset]", "flash_fwd_kernel"}) {
				t.Errorf("rank 100/1 work %q", got)
			}
			if got := names(c, r2.Work); !slices.Equal(got, []string{"[CUDA memcpy Device-to-Host]", "act_and_mul_kernel", "rms_norm_kernel"}) {
				t.Errorf("rank 200/0 work %q", got)
			}
			streams := map[uint32]int{}
			for _, w := range r0.Work {
				streams[w.Stream]++
				if w.Kind == event.Kernel && c.Names.Name(w.Name) == gemm {
					if sh := c.Shapes.Shape(w.Shape); sh.Grid != [3]int32{132, 1, 1} || sh.Block != [3]int32{256, 1, 1} {
						t.Errorf("gemm shape %+v", sh)
					}
				}
				if w.Kind == event.Memcpy && w.Shape != 0 {
					t.Errorf("memcpy has a shape")
				}
			}
			if streams[7] != 3 || streams[13] != 1 {
				t.Errorf("streams %v", streams)
			}
			for _, w := range r2.Work {
				if w.Kind == event.Kernel && (w.GraphNode != 41 && w.GraphNode != 42 || w.Correlation != 77) {
					t.Errorf("graph kernel %+v", w)
				}
			}
			// earliest: the launch of the memcpy at 500; latest: the NVTX range end
			if ls, _ := nsystest.LaunchWindow(500); r0.SpanStart != ls || r0.SpanEnd != 9_500 {
				t.Errorf("span 100/0 = %d..%d, want %d..9500", r0.SpanStart, r0.SpanEnd, ls)
			}

			// host activity of a process is shared by its ranks
			if len(r0.Launches) == 0 || &r0.Launches[0] != &r1.Launches[0] {
				t.Errorf("launches of pid 100 not shared")
			}
			// 3 kernels + 1 memcpy on 100/0, 1 kernel + 1 memset on 100/1;
			// cudaStreamSynchronize is not a launch
			if len(r0.Launches) != 6 {
				t.Errorf("pid 100 launches = %d, want 6", len(r0.Launches))
			}
			if len(r2.Launches) != 2 { // one cudaGraphLaunch + one memcpy
				t.Errorf("pid 200 launches = %d, want 2", len(r2.Launches))
			}
			var lnames []string
			for _, l := range r2.Launches {
				lnames = append(lnames, c.Names.Name(l.Name))
				if l.TID != 200 {
					t.Errorf("launch tid %d", l.TID)
				}
			}
			slices.Sort(lnames)
			if !slices.Equal(lnames, []string{"cudaGraphLaunch", "cudaMemcpyAsync"}) {
				t.Errorf("pid 200 launch names %q", lnames)
			}
			var texts []string
			for _, rg := range r0.Ranges {
				texts = append(texts, c.Names.Name(rg.Text))
				if rg.Kind != event.NVTX || rg.TID != 101 {
					t.Errorf("range %+v", rg)
				}
			}
			slices.Sort(texts)
			if !slices.Equal(texts, []string{"forward", "layer 0"}) {
				t.Errorf("pid 100 ranges %q", texts)
			}
			if len(r2.Ranges) != 1 || c.Names.Name(r2.Ranges[0].Text) != "decode step" {
				t.Errorf("pid 200 ranges %+v", r2.Ranges)
			}
			if len(r2.GraphNodes) != 2 || r2.GraphNodes[0].Original != 21 || r2.GraphNodes[1].Node != 42 {
				t.Errorf("graph nodes %+v", r2.GraphNodes)
			}
			if len(r0.GraphNodes) != 0 {
				t.Errorf("pid 100 has graph nodes")
			}
		})
	}
}

func TestOptionsOff(t *testing.T) {
	c := read(t, multi(nsystest.Schema2024).Write(t), event.Options{})
	for _, r := range c.Ranks {
		if r.Launches != nil || r.Ranges != nil || r.GraphNodes != nil {
			t.Errorf("rank %s has host data without options", r.Label)
		}
		if len(r.Work) == 0 {
			t.Errorf("rank %s has no work", r.Label)
		}
	}
}

func TestLaunchesOnlyWithContext(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	b.GPU(0, "NVIDIA H100 80GB HBM3")
	// Process 1 has an NVTX range, process 2 none: only 1's launches matter.
	b.Kernel(nsystest.K{PID: 1, TID: 1, Start: 100, End: 200, Name: "k1"})
	b.Kernel(nsystest.K{PID: 2, TID: 2, Start: 100, End: 200, Name: "k2"})
	b.NVTX(1, 1, 10, 300, "step")
	c := read(t, b.Write(t), event.Context)
	if len(c.Ranks) != 2 {
		t.Fatalf("ranks = %d", len(c.Ranks))
	}
	for _, r := range c.Ranks {
		want := 0
		if r.PID == 1 {
			want = 1
		}
		if len(r.Launches) != want {
			t.Errorf("pid %d: %d launches, want %d", r.PID, len(r.Launches), want)
		}
	}
	// With every option, both processes' launches are read.
	for _, r := range read(t, b.Write(t), event.All).Ranks {
		if len(r.Launches) != 1 {
			t.Errorf("event.All: pid %d: %d launches, want 1", r.PID, len(r.Launches))
		}
	}
}

func TestInvalidRows(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	b.GPU(0, "NVIDIA H100 80GB HBM3")
	b.Kernel(nsystest.K{PID: 1, Start: 100, End: 200, Name: "good"})
	b.Kernel(nsystest.K{PID: 1, Start: 300, End: 250, Name: "end before start"})
	b.Kernel(nsystest.K{PID: 1, Start: 0, End: 0, Name: "no timestamps"})
	b.Kernel(nsystest.K{PID: 1, Start: 400, NullEnd: true, Name: "null end"})
	b.Kernel(nsystest.K{PID: 1, NullStart: true, End: 500, Name: "null start"})
	b.Kernel(nsystest.K{PID: 1, Start: 500, End: 500, Name: "zero length is fine"})
	b.Kernel(nsystest.K{PID: 1, Start: 600, End: 700, NullName: true})
	b.Kernel(nsystest.K{PID: 1, Start: 800, End: 900, NameID: 987654})
	b.Memcpy(nsystest.M{PID: 1, Start: 50, End: 40, CopyKind: 1})
	c := read(t, b.Write(t), event.All)
	if len(c.Ranks) != 1 {
		t.Fatalf("ranks = %d", len(c.Ranks))
	}
	got := names(c, c.Ranks[0].Work)
	want := []string{UnnamedKernel, UnnamedKernel, "good", "zero length is fine"}
	if !slices.Equal(got, want) {
		t.Errorf("work %q, want %q", got, want)
	}
	wantWarn := []string{
		"dropped 4 kernels with invalid timestamps (NULL, end < start, or both 0)",
		"dropped 1 memcpys with invalid timestamps (NULL, end < start, or both 0)",
		`2 kernels had no name (NULL or unknown string id); named "[unnamed kernel]"`,
	}
	if !slices.Equal(c.Warnings, wantWarn) {
		t.Errorf("warnings\n%q\nwant\n%q", c.Warnings, wantWarn)
	}
}

func TestNameFallback(t *testing.T) {
	// shortName stands in when demangledName is NULL: build a file whose
	// demangled ids are NULL by hand.
	b := nsystest.New(nsystest.Schema2022)
	b.Kernel(nsystest.K{PID: 1, Start: 10, End: 20, Name: "void ns::fused<int>(int)", Short: "fused"})
	path := b.Write(t)
	rw, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	// The builder declares demangledName NOT NULL, like nsys; recreate the
	// column as nullable to mimic a hand-made file.
	for _, q := range []string{
		"ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k_old",
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM k_old",
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = NULL",
		"DROP TABLE k_old",
	} {
		if _, err := rw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rw.Close()
	c := read(t, path, event.Options{})
	if got := names(c, c.Ranks[0].Work); !slices.Equal(got, []string{"fused"}) {
		t.Errorf("names %q, want shortName", got)
	}
}

func TestCapturedRankFromEnv(t *testing.T) {
	for _, tc := range []struct {
		schema    nsystest.Schema
		env       [][2]string
		label     string
		labelFrom string
	}{
		{nsystest.Schema2024, [][2]string{{"WORLD_SIZE", "8"}, {"LOCAL_RANK", "3"}, {"RANK", "11"}}, "11", "env:RANK"},
		{nsystest.Schema2024, [][2]string{{"LOCAL_RANK", "3"}}, "3", "env:LOCAL_RANK"},
		{nsystest.Schema2024, [][2]string{{"SLURM_PROCID", "6"}, {"OMPI_COMM_WORLD_RANK", "2"}}, "6", "env:SLURM_PROCID"},
		{nsystest.Schema2022, [][2]string{{"OMPI_COMM_WORLD_RANK", "2"}}, "2", "env:OMPI_COMM_WORLD_RANK"}, // DeviceEnvironment only
		{nsystest.Schema2024, nil, "", ""},
		{nsystest.Schema2021, [][2]string{{"RANK", "1"}}, "", ""}, // 2021 records no env
	} {
		b := nsystest.New(tc.schema)
		for _, e := range tc.env {
			b.Env(e[0], e[1])
		}
		b.Kernel(nsystest.K{PID: 9, Device: 1, Start: 10, End: 20, Name: "k"})
		c := read(t, b.Write(t), event.Options{})
		if c.CapturedRank != tc.label || c.CapturedRankFrom != tc.labelFrom || c.Ranks[0].Label != "" {
			t.Errorf("%v %v: captured rank %q from %q, want %q from %q", tc.schema, tc.env, c.CapturedRank, c.CapturedRankFrom, tc.label, tc.labelFrom)
		}
		for _, e := range tc.env {
			if tc.schema != nsystest.Schema2021 && c.Env[e[0]] != e[1] {
				t.Errorf("%v: Env[%s] = %q, want %q", tc.schema, e[0], c.Env[e[0]], e[1])
			}
		}
	}
}

func TestNoKernelTable(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	b.Memset(nsystest.M{PID: 1, Start: 10, End: 20})
	b.NVTX(1, 1, 0, 30, "init")
	_, err := Read(context.Background(), openRO(t, b.Write(t)), "x.sqlite", event.All)
	if !errors.Is(err, ErrNoKernels) {
		t.Fatalf("err = %v, want ErrNoKernels", err)
	}
	if !strings.Contains(err.Error(), "was CUDA tracing on") {
		t.Errorf("message %q does not say what to check", err)
	}
}

func TestEmptyKernelTable(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	b.EnsureTable("CUPTI_ACTIVITY_KIND_KERNEL")
	path := b.Write(t)
	_, err := Read(context.Background(), openRO(t, path), path, event.All)
	if !errors.Is(err, ErrNoKernels) || !strings.Contains(err.Error(), "the table is empty") {
		t.Errorf("err = %v, want an empty-table error matching ErrNoKernels", err)
	}
	b = nsystest.New(nsystest.Schema2024)
	b.Kernel(nsystest.K{PID: 1, Start: 9, End: 3, Name: "backwards"})
	path = b.Write(t)
	_, err = Read(context.Background(), openRO(t, path), path, event.All)
	if !errors.Is(err, ErrNoKernels) || !strings.Contains(err.Error(), "dropped 1 kernels") {
		t.Errorf("err = %v, want a no-valid-work error naming the dropped rows", err)
	}
}

func TestNVTXRepairs(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	b.Kernel(nsystest.K{PID: 1, Start: 1_000, End: 2_000, Name: "k"})
	b.NVTXEvent(nsystest.N{PID: 1, Start: 1_500, NullEnd: true, Text: "never closed"})
	b.NVTXEvent(nsystest.N{PID: 1, Start: -2_000, End: 500, Text: "before time zero"})
	b.NVTXEvent(nsystest.N{PID: 1, Start: 600, End: 700, Type: 70, Text: "nvtxt"})
	b.NVTXEvent(nsystest.N{PID: 2, Start: 600, End: 700, Text: "other process"})
	c := read(t, b.Write(t), event.All)
	r := c.Ranks[0]
	byText := map[string]event.Range{}
	for _, rg := range r.Ranges {
		byText[c.Names.Name(rg.Text)] = rg
	}
	if len(byText) != 3 {
		t.Fatalf("ranges %v", byText)
	}
	// capture end = the last kernel end; its launch ends before it starts
	if rg := byText["never closed"]; rg.End != 2_000 {
		t.Errorf("open range end = %d, want 2000", rg.End)
	}
	if rg := byText["before time zero"]; rg.Start != -2_000 {
		t.Errorf("negative start changed: %d", rg.Start)
	}
	if r.SpanStart < 0 {
		t.Errorf("span start %d is negative", r.SpanStart)
	}
	if !slices.Contains(c.Warnings, "1 NVTX ranges were never closed; clipped to the capture end") {
		t.Errorf("warnings %q", c.Warnings)
	}
}

// TestParallelAndDriverPaths reads one export through the fast scanner
// (where built in), in parallel chunks, and through the database/sql
// driver path in one chunk, and demands identical captures.
func TestParallelAndDriverPaths(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 5000 {
		pid := int64(10 + i%3)
		b.Kernel(nsystest.K{PID: pid, Device: int32(i % 2), Stream: int32(i % 5), Start: int64(i)*100 + 1, End: int64(i)*100 + 1 + int64(rng.IntN(500)),
			Name: fmt.Sprintf("kernel_%d<%d>", i%37, i%3), Grid: [3]int32{int32(1 + i%7), 1, 1}})
		if i%50 == 0 {
			b.Memcpy(nsystest.M{PID: pid, Device: int32(i % 2), Start: int64(i)*100 + 5, End: int64(i)*100 + 50, CopyKind: 8})
		}
	}
	path := b.Write(t)

	par, err := ReadWith(context.Background(), openRO(t, path), path, event.All, Config{File: path, MinChunk: 256})
	if err != nil {
		t.Fatal(err)
	}
	seq, err := ReadWith(context.Background(), openRO(t, path), path, event.All, Config{MinChunk: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}

	if len(par.Ranks) != 6 || len(seq.Ranks) != 6 {
		t.Fatalf("ranks %d %d, want 6", len(par.Ranks), len(seq.Ranks))
	}
	total := 0
	for i := range par.Ranks {
		p, s := par.Ranks[i], seq.Ranks[i]
		if p.PID != s.PID || p.Device != s.Device || len(p.Work) != len(s.Work) || len(p.Launches) != len(s.Launches) {
			t.Fatalf("rank %d differs: %d/%d %d work vs %d/%d %d", i, p.PID, p.Device, len(p.Work), s.PID, s.Device, len(s.Work))
		}
		total += len(p.Work)
		key := func(c *event.Capture, w event.Work) string {
			return fmt.Sprintf("%d %d %d %s %v %d", w.Start, w.End, w.Stream, c.Names.Name(w.Name), c.Shapes.Shape(w.Shape), w.Correlation)
		}
		var a, bb []string
		for j := range p.Work {
			a = append(a, key(par, p.Work[j]))
			bb = append(bb, key(seq, s.Work[j]))
		}
		slices.Sort(a)
		slices.Sort(bb)
		if !slices.Equal(a, bb) {
			t.Errorf("rank %d work differs between paths", i)
		}
		if p.SpanStart != s.SpanStart || p.SpanEnd != s.SpanEnd {
			t.Errorf("rank %d span differs", i)
		}
		// launches of a process come in no defined order
		lkey := func(c *event.Capture, l event.Launch) string {
			return fmt.Sprintf("%d %d %d %d %s", l.Start, l.End, l.Correlation, l.TID, c.Names.Name(l.Name))
		}
		a, bb = a[:0], bb[:0]
		for j := range p.Launches {
			a = append(a, lkey(par, p.Launches[j]))
			bb = append(bb, lkey(seq, s.Launches[j]))
		}
		slices.Sort(a)
		slices.Sort(bb)
		if !slices.Equal(a, bb) {
			t.Errorf("rank %d launches differ between paths", i)
		}
	}
	if total != 5000+100 {
		t.Errorf("total work %d, want 5100", total)
	}
}

func TestPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, nkeys := range []int{1, 2, 3, 17} {
		for _, grouped := range []bool{false, true} { // random keys, then keys already grouped
			n := 1000
			items := make([]int, n)
			keys := make([]uint16, n)
			for i := range items {
				keys[i] = uint16(rng.IntN(nkeys))
			}
			if grouped {
				slices.Sort(keys)
			}
			for i := range items {
				items[i] = int(keys[i])*1_000_000 + i
			}
			checkPartition(t, partition(items, keys, nkeys), n)
		}
	}
}

// checkPartition checks that parts holds n items, each in its key's part
// (key = item / 1e6) and in its original order (item % 1e6).
func checkPartition(t *testing.T, parts [][]int, n int) {
	t.Helper()
	seen := 0
	for k, p := range parts {
		for j, it := range p {
			if it/1_000_000 != k {
				t.Fatalf("item %d in bucket %d", it, k)
			}
			if j > 0 && it < p[j-1] {
				t.Fatalf("bucket %d: item %d after %d (the split must keep each key's order)", k, it, p[j-1])
			}
		}
		if cap(p) != len(p) {
			t.Errorf("bucket %d cap %d > len %d", k, cap(p), len(p))
		}
		seen += len(p)
	}
	if seen != n {
		t.Errorf("lost items: %d of %d", seen, n)
	}
}

func TestNotAnExport(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string][]byte{
		"garbage.sqlite": []byte(strings.Repeat("not sqlite at all ", 300)),
		"empty.sqlite":   {},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(context.Background(), openRO(t, p), p, event.All)
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A valid SQLite file without nsys tables.
	p := filepath.Join(dir, "other.sqlite")
	db, err := sql.Open("sqlite3", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Read(context.Background(), openRO(t, p), p, event.All); !errors.Is(err, ErrNoKernels) {
		t.Errorf("plain SQLite file: %v, want ErrNoKernels", err)
	}
}

func TestCancel(t *testing.T) {
	path := multi(nsystest.Schema2024).Write(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, openRO(t, path), path, event.All); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestAPIName(t *testing.T) {
	for in, want := range map[string]string{
		"cudaLaunchKernel_v7000": "cudaLaunchKernel", "cuLaunchKernelEx": "cuLaunchKernelEx",
		"cudaGraphLaunch_v10000": "cudaGraphLaunch", "cudaMemcpy_vx": "cudaMemcpy_vx", "_v1": "_v1",
	} {
		if got := apiName(in); got != want {
			t.Errorf("apiName(%q) = %q, want %q", in, got, want)
		}
	}
}
