package kineto

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/servecmp/servecmp/event"
)

// repoRoot is the module root, found from this file's location.
func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Dir(filepath.Dir(file))
}

// realTrace is one real trace with where to find it.
type realTrace struct {
	name string
	path string
}

// realTraces lists the traces copied into testdata/kineto and those read
// from the shared test data when it is present.
func realTraces(t testing.TB) []realTrace {
	root := repoRoot(t)
	local := []string{"sglang-qwen3-8b-decode-mi300x.json.gz", "vllm-decode-fullgraph.json.gz"}
	shared := []string{"vllm-gptoss-tp-b200-eager.json.gz", "hf-qwen1.5-0.5b-h100-eager.json.gz"}
	var out []realTrace
	for _, n := range local {
		out = append(out, realTrace{n, filepath.Join(root, "testdata", "kineto", n)})
	}
	for _, n := range shared {
		p := filepath.Join(root, "..", "shared", "testdata", "kineto", n)
		if _, err := os.Stat(p); err == nil {
			out = append(out, realTrace{n, p})
		} else {
			t.Logf("%s: shared test data absent, not checked", n)
		}
	}
	return out
}

func readFile(t testing.TB, path string, opts event.Options) *event.Capture {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := Read(context.Background(), f, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refEvent is a device-work event decoded the slow, simple way.
type refEvent struct {
	start, end int64
	name       string
	kind       event.Kind
	corr       uint64
}

// refDecode decodes the whole trace into maps and converts times with
// rational arithmetic, independently of the streaming reader.
func refDecode(t *testing.T, path string) (work map[int64][]refEvent, launches map[uint64]bool, ranges int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	ns := func(x *big.Rat) int64 {
		// round half away from zero; all reference times are positive
		y := new(big.Rat).Mul(x, big.NewRat(1000, 1))
		y.Add(y, big.NewRat(1, 2))
		q := new(big.Int).Quo(y.Num(), y.Denom())
		return q.Int64()
	}
	rat := func(v any) *big.Rat {
		n, ok := v.(json.Number)
		if !ok {
			t.Fatalf("not a number: %v", v)
		}
		r, ok := new(big.Rat).SetString(n.String())
		if !ok {
			t.Fatalf("bad number %q", n)
		}
		return r
	}
	work = map[int64][]refEvent{}
	launches = map[uint64]bool{}
	for _, e := range doc["traceEvents"].([]any) {
		m := e.(map[string]any)
		if m["ph"] != "X" {
			continue
		}
		args, _ := m["args"].(map[string]any)
		cat, _ := m["cat"].(string)
		var kind event.Kind
		switch cat {
		case "kernel":
			kind = event.Kernel
		case "gpu_memcpy":
			kind = event.Memcpy
		case "gpu_memset":
			kind = event.Memset
		case "cuda_runtime", "cuda_driver":
			if c, ok := args["correlation"].(json.Number); ok {
				v, _ := c.Int64()
				launches[uint64(v)] = true
			}
			continue
		case "python_function", "user_annotation":
			ranges++
			continue
		default:
			continue
		}
		ts := rat(m["ts"])
		dur := rat(m["dur"])
		dev, _ := args["device"].(json.Number).Int64()
		corr, _ := args["correlation"].(json.Number).Int64()
		work[dev] = append(work[dev], refEvent{
			start: ns(ts), end: ns(new(big.Rat).Add(ts, dur)),
			name: m["name"].(string), kind: kind, corr: uint64(corr),
		})
	}
	return work, launches, ranges
}

// union is the length of the union of [start, end) intervals.
func union(iv [][2]int64) int64 {
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	var busy, curS, curE int64
	open := false
	for _, x := range iv {
		if !open || x[0] > curE {
			if open {
				busy += curE - curS
			}
			curS, curE, open = x[0], x[1], true
		} else if x[1] > curE {
			curE = x[1]
		}
	}
	if open {
		busy += curE - curS
	}
	return busy
}

type totals struct {
	kernels       int
	kernelNs      int64
	busyNs        int64
	memops        int
	first, lastNs int64
}

func refTotals(evs []refEvent) totals {
	var t totals
	var iv [][2]int64
	for i, e := range evs {
		if e.kind == event.Kernel {
			t.kernels++
			t.kernelNs += e.end - e.start
		} else {
			t.memops++
		}
		iv = append(iv, [2]int64{e.start, e.end})
		if i == 0 || e.start < t.first {
			t.first = e.start
		}
		if i == 0 || e.end > t.lastNs {
			t.lastNs = e.end
		}
	}
	t.busyNs = union(iv)
	return t
}

// rankTotals is refTotals over the reader's work.
func rankTotals(r *event.Rank) totals {
	evs := make([]refEvent, len(r.Work))
	for i, w := range r.Work {
		evs[i] = refEvent{start: w.Start, end: w.End, kind: w.Kind}
	}
	return refTotals(evs)
}

func TestRealTracesMatchReference(t *testing.T) {
	for _, tr := range realTraces(t) {
		t.Run(tr.name, func(t *testing.T) {
			c := readFile(t, tr.path, event.All)
			ref, refLaunch, refRanges := refDecode(t, tr.path)
			if len(c.Ranks) != len(ref) {
				t.Fatalf("ranks: got %d, reference has %d devices", len(c.Ranks), len(ref))
			}
			for _, r := range c.Ranks {
				evs := ref[int64(r.Device)]
				want := refTotals(evs)
				got := rankTotals(r)
				if got != want {
					t.Errorf("device %d: got %+v, reference %+v", r.Device, got, want)
				}
				t.Logf("device %d (%s, %s): %d kernels, %d memops, Σkernel %d ns, busy %d ns",
					r.Device, r.Label, r.GPU, got.kernels, got.memops, got.kernelNs, got.busyNs)
				// every interval and name, not only the totals
				type key struct {
					s, e int64
					n    string
					k    event.Kind
					c    uint64
				}
				var a, b []key
				for _, w := range r.Work {
					a = append(a, key{w.Start, w.End, r.Names.Name(w.Name), w.Kind, w.Correlation})
				}
				for _, e := range evs {
					b = append(b, key{e.start, e.end, e.name, e.kind, e.corr})
				}
				cmp := func(x, y key) int {
					switch {
					case x.s != y.s:
						return int(x.s - y.s)
					case x.e != y.e:
						return int(x.e - y.e)
					case x.c != y.c:
						if x.c < y.c {
							return -1
						}
						return 1
					}
					if x.n < y.n {
						return -1
					} else if x.n > y.n {
						return 1
					}
					return int(x.k) - int(y.k)
				}
				slices.SortFunc(a, cmp)
				slices.SortFunc(b, cmp)
				if !slices.Equal(a, b) {
					t.Errorf("device %d: work events differ from the reference", r.Device)
				}
				// launches: exactly the runtime calls that launched this device's work
				wantL := map[uint64]bool{}
				for _, e := range evs {
					if refLaunch[e.corr] {
						wantL[e.corr] = true
					}
				}
				gotL := map[uint64]bool{}
				for _, l := range r.Launches {
					gotL[l.Correlation] = true
				}
				if len(gotL) != len(wantL) {
					t.Errorf("device %d: %d launch correlations, reference %d", r.Device, len(gotL), len(wantL))
				}
				if len(r.Ranges) != refRanges {
					t.Errorf("device %d: %d ranges, reference %d", r.Device, len(r.Ranges), refRanges)
				}
				if r.SpanStart > want.first || r.SpanEnd < want.lastNs {
					t.Errorf("device %d: span [%d,%d) does not cover work [%d,%d)", r.Device, r.SpanStart, r.SpanEnd, want.first, want.lastNs)
				}
			}
		})
	}
}

// gunzipFile returns the decompressed content of a gzip file.
func gunzipFile(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
