package kineto

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
)

func TestInterval(t *testing.T) {
	tests := []struct {
		ts, dur    string
		start, end int64
	}{
		{"1428625731622.25", "18.112", 1428625731622250, 1428625731640362},
		{"0", "", 0, 0},
		{"12", "3", 12000, 15000},
		// halves round up; End is rounded on ts+dur, not Start+round(dur)
		{"1.0005", "0.0005", 1001, 1001},
		{"1.0004", "0.0001", 1000, 1001},
		// beyond float64: 1.7e15 µs with sub-ns fractions
		{"1700000000000000.0005", "0", 1700000000000000001, 1700000000000000001},
		{"1700000000000000.0004999", "0.0000001", 1700000000000000000, 1700000000000000001},
		{"1700000000000000.000499999", "0", 1700000000000000000, 1700000000000000000},
		{"999999999999999.999999999", "0.000000001", 1000000000000000000, 1000000000000000000},
		// slow path: sign, exponent, long fraction
		{"-1.5", "1", -1500, -500},
		{"-0.0005", "0", -1, -1},
		{"1.5e3", "5e-1", 1500000, 1500500},
		{"1E2", "0", 100000, 100000},
		{"0.0004999999999", "0.0000000000002", 0, 1},
		{"1700000000000000.0005", "1.00000000001", 1700000000000000001, 1700000000000001001},
	}
	for _, tc := range tests {
		s, e, err := interval(tc.ts, tc.dur)
		if err != nil || s != tc.start || e != tc.end {
			t.Errorf("interval(%q, %q) = %d, %d, %v; want %d, %d", tc.ts, tc.dur, s, e, err, tc.start, tc.end)
		}
	}
	for _, bad := range [][2]string{{"", "1"}, {"abc", "1"}, {"1", "x"}, {"1/3", "0"}, {"1e999", "0"},
		{"1e30", "0"}, {"0x10", "0"}, {"Inf", "0"}, {"NaN", "0"}, {"9999999999999999999", "0"}} {
		if _, _, err := interval(bad[0], bad[1]); err == nil {
			t.Errorf("interval(%q, %q): no error", bad[0], bad[1])
		}
	}
}

// synthetic is a small trace with one event of each kind the reader cares
// about, plus some it skips.
const synthetic = `{
 "schemaVersion": 1,
 "deviceProperties": [{"id": 0, "name": "GPU Zero"}, {"id": 1, "name": "GPU One"}],
 "cupti_version": 28,
 "metadata": {"nested": [1, {"a": [2, 3]}], "s": "x"},
 "traceEvents": [
  {"name": "process_name", "ph": "M", "ts": 1, "pid": 77, "tid": 0, "args": {"name": "python3"}},
  {"ph": "X", "cat": "python_function", "name": "model.py(10): forward", "pid": 77, "tid": 78, "ts": 100.0, "dur": 50.5, "args": {"Python id": 1}},
  {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 77, "tid": 78, "ts": 99.5, "dur": 60, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 77, "tid": 78, "ts": 101, "dur": 5, "args": {"Input Dims": [[1, 2]]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 77, "tid": 78, "ts": 102.25, "dur": 3.5, "args": {"correlation": 10}},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 77, "tid": 79, "ts": 103, "dur": 1, "args": {"correlation": 11}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 77, "tid": 78, "ts": 104, "dur": 1, "args": {"correlation": 12}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 77, "tid": 78, "ts": 106, "dur": 40, "args": {"correlation": 13}},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 10, "pid": 0, "tid": 7, "ts": 110},
  {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 110.0005, "dur": 20.0005,
   "args": {"device": 0, "stream": 7, "correlation": 10, "grid": [132, 1, 1], "block": [384, 1, 1], "External id": 5}},
  {"ph": "X", "cat": "kernel", "name": "norm_kernel", "pid": 1, "tid": 3, "ts": 111, "dur": 2,
   "args": {"device": 1, "stream": 3, "correlation": 11, "grid": [4], "block": [256, 1, 1]}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 131, "dur": 1.5,
   "args": {"device": 0, "stream": 7, "correlation": 12, "bytes": 64}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 8, "ts": 133, "dur": 0.25,
   "args": {"device": 0, "stream": 8, "correlation": 0}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "step", "pid": 0, "tid": 7, "ts": 110, "dur": 30, "args": {}},
  {"ph": "X", "cat": "kernel", "name": "broken", "pid": 0, "tid": 7, "ts": 140, "dur": -1, "args": {"device": 0}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "x", "pid": 77, "tid": 78, "ts": 9999999}
 ]
}`

func gz(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadSynthetic(t *testing.T) {
	for _, enc := range []struct {
		name string
		data []byte
	}{{"plain", []byte(synthetic)}, {"gzip", gz(t, synthetic)}} {
		t.Run(enc.name, func(t *testing.T) {
			c, err := Read(context.Background(), bytes.NewReader(enc.data), "/x/trace.pt.trace.json.gz", event.All)
			if err != nil {
				t.Fatal(err)
			}
			if c.Format != "kineto" || c.ToolVersion != "schema 1, cupti 28" || c.Path != "/x/trace.pt.trace.json.gz" {
				t.Errorf("capture header: %q %q %q", c.Format, c.ToolVersion, c.Path)
			}
			if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "1 events with negative duration") {
				t.Errorf("warnings: %q", c.Warnings)
			}
			if len(c.Ranks) != 2 {
				t.Fatalf("%d ranks", len(c.Ranks))
			}
			r0, r1 := c.Ranks[0], c.Ranks[1]
			if r0.Device != 0 || r0.PID != 0 || r0.Label != "" || r0.LabelFrom != "" ||
				r0.GPU != "GPU Zero" || r0.Process != "python3" || r0.Format != "kineto" || r0.Source != c.Path {
				t.Errorf("rank 0 header: %+v", r0)
			}
			if r1.Device != 1 || r1.PID != 1 || r1.Label != "" || r1.GPU != "GPU One" {
				t.Errorf("rank 1 header: %+v", r1)
			}
			name := func(r *event.Rank, id uint32) string { return r.Names.Name(id) }
			want0 := []struct {
				n          string
				s, e       int64
				k          event.Kind
				corr       uint64
				stream     uint32
				grid, blck [3]int32
			}{
				{"gemm_kernel", 110001, 130001, event.Kernel, 10, 7, [3]int32{132, 1, 1}, [3]int32{384, 1, 1}},
				{"Memcpy HtoD (Pinned -> Device)", 131000, 132500, event.Memcpy, 12, 7, [3]int32{}, [3]int32{}},
				{"Memset (Device)", 133000, 133250, event.Memset, 0, 8, [3]int32{}, [3]int32{}},
			}
			if len(r0.Work) != len(want0) {
				t.Fatalf("rank 0: %d work items", len(r0.Work))
			}
			for i, w := range want0 {
				g := r0.Work[i]
				sh := r0.Shapes.Shape(g.Shape)
				if name(r0, g.Name) != w.n || g.Start != w.s || g.End != w.e || g.Kind != w.k ||
					g.Correlation != w.corr || g.Stream != w.stream || sh.Grid != w.grid || sh.Block != w.blck {
					t.Errorf("rank 0 work %d: %+v (%s, %+v)", i, g, name(r0, g.Name), sh)
				}
			}
			if len(r1.Work) != 1 || r1.Shapes.Shape(r1.Work[0].Shape).Grid != [3]int32{4, 1, 1} {
				t.Errorf("rank 1 work: %+v", r1.Work)
			}
			// launches: the calls joined to the rank's own work only
			if len(r0.Launches) != 2 || name(r0, r0.Launches[0].Name) != "cudaLaunchKernel" ||
				r0.Launches[0].TID != 78 || r0.Launches[0].Start != 102250 || r0.Launches[0].End != 105750 ||
				r0.Launches[1].Correlation != 12 {
				t.Errorf("rank 0 launches: %+v", r0.Launches)
			}
			if len(r1.Launches) != 1 || r1.Launches[0].Correlation != 11 || r1.Launches[0].TID != 79 {
				t.Errorf("rank 1 launches: %+v", r1.Launches)
			}
			// ranges: python frame and annotation; the GPU copy is skipped
			if len(r0.Ranges) != 2 || len(r1.Ranges) != 2 {
				t.Fatalf("ranges: %+v / %+v", r0.Ranges, r1.Ranges)
			}
			py, ann := r0.Ranges[0], r0.Ranges[1]
			if py.Kind != event.PythonFrame || name(r0, py.Text) != "model.py(10): forward" || py.Start != 100000 || py.End != 150500 || py.TID != 78 {
				t.Errorf("python frame: %+v", py)
			}
			if ann.Kind != event.Annotation || name(r0, ann.Text) != "step" || ann.Start != 99500 || ann.End != 159500 {
				t.Errorf("annotation: %+v", ann)
			}
			// each rank owns its copy of the host ranges
			r1.Ranges[0].TID = -1
			if r0.Ranges[0].TID != 78 {
				t.Error("ranks share one ranges slice")
			}
			// span: host events (from 99.5 µs to the sync call ending at 146 µs) and work
			if r0.SpanStart != 99500 || r0.SpanEnd != 159500 {
				t.Errorf("rank 0 span [%d, %d)", r0.SpanStart, r0.SpanEnd)
			}
		})
	}
}

func TestReadOptions(t *testing.T) {
	c, err := Read(context.Background(), strings.NewReader(synthetic), "t.json", event.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Ranks {
		if len(r.Launches) != 0 || len(r.Ranges) != 0 || len(r.GraphNodes) != 0 {
			t.Errorf("rank %d: host data loaded without options", r.Device)
		}
		// the span does not depend on what was loaded
		if r.Device == 0 && (r.SpanStart != 99500 || r.SpanEnd != 159500) {
			t.Errorf("span without options [%d, %d)", r.SpanStart, r.SpanEnd)
		}
	}
}

func TestReadLabelsAndGPUNames(t *testing.T) {
	trace := `{"distributedInfo": {"rank": 3, "world_size": 8},
	 "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}],
	 "traceEvents": [
	  {"ph": "X", "cat": "kernel", "name": "k", "pid": 9, "tid": 3, "ts": 1, "dur": 1, "args": {"device": 9, "stream": 3}},
	  {"ph": "X", "cat": "Kernel", "name": "k", "pid": 5, "tid": 3, "ts": 1, "dur": 1, "args": {"stream": 3}}
	 ]}`
	c, err := Read(context.Background(), strings.NewReader(trace), "t.json", event.All)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ranks) != 2 {
		t.Fatalf("%d ranks", len(c.Ranks))
	}
	// device from pid when args.device is missing; category in any case
	if c.Ranks[0].Device != 5 || c.Ranks[1].Device != 9 {
		t.Errorf("devices %d, %d", c.Ranks[0].Device, c.Ranks[1].Device)
	}
	// the reader sets no labels (package analysis does)
	for _, r := range c.Ranks {
		if r.Label != "" || r.LabelFrom != "" || r.GPU != "AMD Instinct MI300X" {
			t.Errorf("rank %+v", r)
		}
	}
	if len(c.Warnings) != 2 {
		t.Errorf("warnings %q", c.Warnings)
	}

	one := `{"distributedInfo": {"rank": 0}, "deviceProperties": [{"id": 0, "name": "A"}, {"id": 1, "name": "B"}],
	 "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 4, "tid": 3, "ts": 1, "dur": 1, "args": {"device": 4}}]}`
	c, err = Read(context.Background(), strings.NewReader(one), "t.json", event.All)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Ranks[0]; c.CapturedRank != "0" || c.CapturedRankFrom != "trace:distributedInfo.rank" || r.Label != "" || r.GPU != "" {
		t.Errorf("captured rank %q from %q, label %q, gpu %q", c.CapturedRank, c.CapturedRankFrom, r.Label, r.GPU)
	}
}

func TestReadErrors(t *testing.T) {
	valid := gz(t, synthetic)
	badSum := append([]byte(nil), valid...)
	badSum[len(badSum)-8] ^= 0xff // CRC-32 of the trailer
	noKernels := `{"traceEvents": [
	  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
	  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 1, "ts": 1, "dur": 1, "args": {"device": 0}}]}`
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty input"},
		{"array", []byte(`[{"ph": "X"}]`), "top level is a JSON array"},
		{"null", []byte(`null`), "top level is not a JSON object"},
		{"garbage", []byte(`hello`), "not JSON"},
		{"no traceEvents", []byte(`{"schemaVersion": 1, "other": [1, 2]}`), "no traceEvents array"},
		{"traceEvents object", []byte(`{"traceEvents": {}}`), "traceEvents is not an array"},
		{"truncated json", []byte(synthetic[:len(synthetic)/2]), "truncated JSON"},
		{"truncated gzip", valid[:len(valid)/2], "gzip data: the file ends early (truncated)"},
		{"gzip checksum", badSum, "gzip data: checksum mismatch"},
		{"whole gzip of truncated json", gz(t, synthetic[:len(synthetic)/2]), "truncated JSON"},
		{"gzip magic only", []byte{0x1f, 0x8b, 0x08}, "not readable as gzip"},
		{"bad syntax", []byte(`{"traceEvents": [{"ph": "X",, }]}`), "invalid JSON at byte"},
		{"no kernels", []byte(noKernels), "no GPU kernel events"},
		{"empty events", []byte(`{"traceEvents": []}`), "no GPU kernel events"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Read(context.Background(), bytes.NewReader(tc.data), "in/trace.json", event.All)
			if err == nil {
				t.Fatalf("no error; %d ranks", len(c.Ranks))
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line mentioning %q", msg, tc.want)
			}
		})
	}
	_, err := Read(context.Background(), strings.NewReader(noKernels), "x", event.All)
	if !errors.Is(err, ErrNoKernels) {
		t.Errorf("no-kernel error %v does not wrap ErrNoKernels", err)
	}
}

func TestReadSkipsOddElements(t *testing.T) {
	trace := `{"traceEvents": [1, "x", null, [],
	  {"ph": "X", "cat": "kernel", "name": 5, "pid": 0, "tid": 1, "ts": 1, "dur": 1},
	  {"ph": "X", "cat": "kernel", "name": "k", "pid": "gpu", "tid": 1, "ts": "2", "dur": "1", "args": {"device": "0", "grid": "x", "block": [1, 2, 3, 4]}},
	  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": "zz", "dur": 1, "args": {"device": 0}}
	]}`
	c, err := Read(context.Background(), strings.NewReader(trace), "x", event.All)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Ranks[0]
	if len(r.Work) != 1 || r.Work[0].Start != 2000 || r.Work[0].End != 3000 || r.Work[0].Shape != 0 {
		t.Errorf("work %+v", r.Work)
	}
	if len(c.Warnings) != 2 {
		t.Errorf("warnings %q", c.Warnings)
	}
}

func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Read(ctx, strings.NewReader(synthetic), "x", event.All)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(synthetic))
	f.Add(gz(f, synthetic))
	f.Add([]byte(`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1e3, "dur": -0, "args": {"device": 1, "grid": [1e9]}}]}`))
	f.Add([]byte(`{"traceEvents": [], "deviceProperties": 3, "distributedInfo": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(context.Background(), bytes.NewReader(data), "fuzz", event.All)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		if len(c.Ranks) == 0 {
			t.Fatal("capture without ranks")
		}
		for _, r := range c.Ranks {
			for _, w := range r.Work {
				if !event.TimesOK(w.Start, w.End) || w.Start < r.SpanStart || w.End > r.SpanEnd {
					t.Fatalf("work %+v outside span [%d, %d)", w, r.SpanStart, r.SpanEnd)
				}
			}
			for _, x := range r.Ranges {
				if x.End < x.Start {
					t.Fatalf("range %+v", x)
				}
			}
		}
	})
}

// TestReadUnnamedWork: device events without a name (missing or null) keep
// their time under a name that says so, with a counted warning.
func TestReadUnnamedWork(t *testing.T) {
	trace := `{"traceEvents": [
	  {"ph": "X", "cat": "kernel", "name": null, "pid": 0, "tid": 1, "ts": 1, "dur": 1, "args": {"device": 0}},
	  {"ph": "X", "cat": "kernel", "pid": 0, "tid": 1, "ts": 3, "dur": 1, "args": {"device": 0}},
	  {"ph": "X", "cat": "gpu_memset", "name": "", "pid": 0, "tid": 1, "ts": 5, "dur": 1, "args": {"device": 0}},
	  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 7, "dur": 1, "args": {"device": 0}}
	]}`
	c, err := Read(context.Background(), strings.NewReader(trace), "x", event.All)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range c.Ranks[0].Work {
		names = append(names, c.Names.Name(w.Name))
	}
	want := []string{"[unnamed kernel]", "[unnamed kernel]", "[unnamed gpu_memset]", "k"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("names %q, want %q", names, want)
	}
	if len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], "3 device events had no name") {
		t.Errorf("warnings %q", c.Warnings)
	}
}

// TestReadByteOrderMark: a plain trace saved with a UTF-8 byte-order mark
// reads like the same trace without it.
func TestReadByteOrderMark(t *testing.T) {
	c, err := Read(context.Background(), strings.NewReader("\xef\xbb\xbf"+synthetic), "x", event.All)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(context.Background(), strings.NewReader(synthetic), "x", event.All)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ranks) != len(want.Ranks) || len(c.Ranks[0].Work) != len(want.Ranks[0].Work) {
		t.Errorf("with BOM: %d ranks, %d work; without: %d ranks, %d work", len(c.Ranks), len(c.Ranks[0].Work), len(want.Ranks), len(want.Ranks[0].Work))
	}
}

// TestReadSessionStart: a trace's clock has no session zero, so the reader
// sets the capture's SessionStart (what --window counts from) to its first
// event, the earliest span start of its ranks.
func TestReadSessionStart(t *testing.T) {
	c, err := Read(context.Background(), strings.NewReader(synthetic), "x", event.All)
	if err != nil {
		t.Fatal(err)
	}
	first := c.Ranks[0].SpanStart
	for _, r := range c.Ranks {
		first = min(first, r.SpanStart)
	}
	if c.SessionStart != first || first == 0 {
		t.Errorf("SessionStart %d, want the first event %d (non-zero in the synthetic trace)", c.SessionStart, first)
	}
}
