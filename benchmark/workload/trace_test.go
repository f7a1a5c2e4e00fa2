package workload

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/servecmp/servecmp/internal/testkit/tracegen"
	"github.com/servecmp/servecmp/tokenizer"
)

// smallTrace is a trace of the conversation shape at a size every pair
// of prompts can be compared: 16-token blocks, short documents.
func smallTrace(n int, seed uint64) tracegen.Spec {
	return tracegen.Spec{Requests: n, DurationS: 60, Seed: seed, BlockSize: 16, NewShare: 0.4, SystemPrompts: 4,
		DocMean: 60, UserMean: 20, OutMean: 10, MaxInput: 400}
}

// genTrace writes the trace of spec in format to a file and returns its
// path and requests.
func genTrace(t testing.TB, spec tracegen.Spec, format string) (string, []tracegen.Request) {
	t.Helper()
	var reqs []tracegen.Request
	tracegen.Generate(spec, func(q tracegen.Request) error {
		q.HashIDs = append([]int64(nil), q.HashIDs...)
		reqs = append(reqs, q)
		return nil
	})
	var buf bytes.Buffer
	name := "trace.jsonl"
	if format == TraceAzure {
		name = "trace.csv"
		tracegen.WriteAzure(&buf, spec)
	} else {
		tracegen.WriteMooncake(&buf, spec)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, reqs
}

// replay builds the workload of the trace at path and parses it back.
func replay(t testing.TB, path string, spec TraceSpec) (*Workload, []byte, TraceStats) {
	t.Helper()
	tr, err := ReadTrace(context.Background(), path, spec)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	sha, err := tr.WriteTo(context.Background(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(buf.Bytes()); hex.EncodeToString(sum[:]) != sha {
		t.Fatalf("WriteTo's sha256 %s is not the bytes'", sha)
	}
	w, err := Parse("wl.jsonl", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return w, buf.Bytes(), tr.Stats
}

func lcp(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// impliedLCP is what two requests' hash ids say their prompts share:
// whole blocks while the ids agree, then the shorter part of a last
// block both name.
func impliedLCP(a, b tracegen.Request, bs int) int {
	n := 0
	for j := 0; j < len(a.HashIDs) && j < len(b.HashIDs) && a.HashIDs[j] == b.HashIDs[j]; j++ {
		la, lb := min(bs, a.Input-j*bs), min(bs, b.Input-j*bs)
		n += min(la, lb)
		if la != lb {
			break
		}
	}
	return n
}

// TestTraceMooncakeExact is the acceptance check on a Mooncake
// trace: lengths and arrivals exact, every pair of prompts sharing exactly
// the prefix its hash ids imply, and the implied reuse share equal to a
// brute-force computation over the prompts themselves.
func TestTraceMooncakeExact(t *testing.T) {
	gs := smallTrace(400, 7)
	path, src := genTrace(t, gs, TraceMooncake)
	w, _, st := replay(t, path, TraceSpec{Format: TraceMooncake, BlockSize: 16, TimeScale: 0.5, Seed: 3, Vocab: 50000, FixedLength: true})
	if len(w.Requests) != len(src) || st.Kept != len(src) || st.Read != len(src) {
		t.Fatalf("%d requests from %d lines (stats %+v)", len(w.Requests), len(src), st)
	}
	var total, reuse int64
	for i, r := range w.Requests {
		q := src[i]
		want := float64((q.TimestampMs-src[0].TimestampMs)*1e6) / 1e9 * 0.5
		switch {
		case r.ID != "l"+strconv.Itoa(i+1):
			t.Fatalf("request %d id %q", i, r.ID)
		case len(r.PromptTokens) != q.Input || r.InputLen != q.Input || r.MaxTokens != q.Output || !r.FixedLength:
			t.Fatalf("request %d: %d tokens, input_len %d, max_tokens %d; trace %d, %d", i, len(r.PromptTokens), r.InputLen, r.MaxTokens, q.Input, q.Output)
		case r.ArrivalOffsetS == nil || *r.ArrivalOffsetS != want:
			t.Fatalf("request %d arrives at %v, want %v", i, r.ArrivalOffsetS, want)
		}
		best := 0
		for j := range i {
			got := lcp(r.PromptTokens, w.Requests[j].PromptTokens)
			if imp := impliedLCP(q, src[j], gs.BlockSize); got != imp {
				t.Fatalf("requests %d and %d share %d tokens, their hash ids imply %d", j, i, got, imp)
			}
			best = max(best, got)
		}
		total, reuse = total+int64(q.Input), reuse+int64(best)
	}
	brute := float64(reuse) / float64(total)
	h := w.Header.Trace
	if h == nil || h.ImpliedPrefixReuseShare != brute || st.ImpliedShare != brute {
		t.Fatalf("implied share %+v, brute force %v", h, brute)
	}
	if brute < 0.2 || brute > 0.9 {
		t.Errorf("implied share %.3f: the fixture shares too little or too much to test anything", brute)
	}
	if h.Format != TraceMooncake || h.BlockSize != 16 || h.TimeScale != 0.5 || h.Seed != 3 || h.Vocab != 50000 || h.File != "trace.jsonl" || len(h.SHA256) != 64 {
		t.Errorf("header trace %+v", h)
	}
	if w.Header.Prompt != KindTokens || w.Header.Requests != len(src) {
		t.Errorf("header %+v", w.Header)
	}
}

// TestTraceDeterministic: the same trace and settings give the same bytes;
// another seed other token ids with the same sharing; the header's sha256
// is the trace file's.
func TestTraceDeterministic(t *testing.T) {
	path, _ := genTrace(t, smallTrace(120, 2), TraceMooncake)
	spec := TraceSpec{Format: TraceMooncake, BlockSize: 16, Seed: 1}
	w1, b1, _ := replay(t, path, spec)
	_, b2, _ := replay(t, path, spec)
	if !bytes.Equal(b1, b2) {
		t.Fatal("two runs differ")
	}
	spec.Seed = 2
	w3, b3, _ := replay(t, path, spec)
	if bytes.Equal(b1, b3) || w3.Header.Trace.ImpliedPrefixReuseShare != w1.Header.Trace.ImpliedPrefixReuseShare {
		t.Fatal("another seed: same bytes, or another implied share")
	}
	data, _ := os.ReadFile(path)
	if sum := sha256.Sum256(data); w1.Header.Trace.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("header sha256 %s is not the trace's", w1.Header.Trace.SHA256)
	}
}

// TestTraceWindow: --start leaves out the first part and offsets count
// from it; --limit keeps the first N after it; the implied share counts
// only what is kept.
func TestTraceWindow(t *testing.T) {
	path, src := genTrace(t, smallTrace(200, 4), TraceMooncake)
	startS := float64(src[50].TimestampMs-src[0].TimestampMs) / 1000
	w, _, st := replay(t, path, TraceSpec{Format: TraceMooncake, BlockSize: 16, StartS: startS, Limit: 30, TimeScale: 2})
	if len(w.Requests) != 30 || st.Kept != 30 {
		t.Fatalf("kept %d", len(w.Requests))
	}
	first := 50
	for first > 0 && src[first-1].TimestampMs == src[50].TimestampMs {
		first--
	}
	ref := src[0].TimestampMs*1e6 + int64(startS*1e9+0.5)
	for i, r := range w.Requests {
		q := src[first+i]
		want := float64(q.TimestampMs*1e6-ref) / 1e9 * 2
		if r.ID != "l"+strconv.Itoa(first+i+1) || *r.ArrivalOffsetS != want {
			t.Fatalf("request %d: %s at %v, want l%d at %v", i, r.ID, *r.ArrivalOffsetS, first+i+1, want)
		}
	}
	if *w.Requests[0].ArrivalOffsetS != 0 {
		t.Errorf("first kept request at %v", *w.Requests[0].ArrivalOffsetS)
	}
	h := w.Header.Trace
	if h.StartS != startS || h.Limit != 30 {
		t.Errorf("header %+v", h)
	}
}

// TestTraceAzure: an Azure CSV keeps its lengths and its wall-clock
// arrivals; without prefix information no two prompts share a token.
func TestTraceAzure(t *testing.T) {
	path, src := genTrace(t, smallTrace(300, 5), TraceAzure)
	w, _, st := replay(t, path, TraceSpec{Format: TraceAzure, BlockSize: 16})
	if len(w.Requests) != len(src) || st.Read != len(src) || st.ImpliedShare != 0 {
		t.Fatalf("%d requests, stats %+v", len(w.Requests), st)
	}
	for i, r := range w.Requests {
		q := src[i]
		want := float64((q.TimestampMs-src[0].TimestampMs)*1e6) / 1e9
		if r.ID != "l"+strconv.Itoa(i+2) || r.InputLen != q.Input || len(r.PromptTokens) != q.Input || r.MaxTokens != q.Output || *r.ArrivalOffsetS != want {
			t.Fatalf("request %d: %s %d/%d at %v; trace %d/%d at %v", i, r.ID, r.InputLen, r.MaxTokens, *r.ArrivalOffsetS, q.Input, q.Output, want)
		}
		for j := range i {
			if n := lcp(r.PromptTokens, w.Requests[j].PromptTokens); n != 0 {
				t.Fatalf("requests %d and %d share %d tokens", j, i, n)
			}
		}
	}
	if h := w.Header.Trace; h.Format != TraceAzure || h.ImpliedPrefixReuseShare != 0 {
		t.Errorf("header %+v", h)
	}
}

// TestTraceGzip: a gzip-compressed trace gives the same requests; the
// header names the compressed file and its hash.
func TestTraceGzip(t *testing.T) {
	path, _ := genTrace(t, smallTrace(80, 6), TraceMooncake)
	data, _ := os.ReadFile(path)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	gz := path + ".gz"
	os.WriteFile(gz, z.Bytes(), 0o644)
	spec := TraceSpec{Format: TraceMooncake, BlockSize: 16}
	plain, _, _ := replay(t, path, spec)
	packed, _, _ := replay(t, gz, spec)
	for i := range plain.Requests {
		a, b := plain.Requests[i], packed.Requests[i]
		if lcp(a.PromptTokens, b.PromptTokens) != len(a.PromptTokens) || *a.ArrivalOffsetS != *b.ArrivalOffsetS {
			t.Fatalf("request %d differs", i)
		}
	}
	if sum := sha256.Sum256(z.Bytes()); packed.Header.Trace.SHA256 != hex.EncodeToString(sum[:]) || packed.Header.Trace.File != "trace.jsonl.gz" {
		t.Errorf("header %+v", packed.Header.Trace)
	}
}

// TestTraceLineEncoding: the fast line writer gives the bytes encoding/json
// gives for the whole request.
func TestTraceLineEncoding(t *testing.T) {
	tw := &traceWriter{}
	tw.digitTable(1000)
	for _, toks := range [][]int{{3}, {3, 999, 1000, 12345, 7}, {5, 5, 5}} {
		r := Request{ID: `l1"<&>`, MaxTokens: 4, FixedLength: true, InputLen: len(toks), Sampling: Sampling{Temperature: ptr(0.5), Seed: ptr(int64(9))}, ArrivalOffsetS: ptr(1.25)}
		got := tw.appendTokenLine(nil, &r, toks)
		r.PromptTokens = toks
		want, _ := marshalLine(&r)
		if !bytes.Equal(got, want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// TestTraceEmit runs the command's path: the file and the report, and an
// output that exists (the flag errors are flagopts' tests).
func TestTraceEmit(t *testing.T) {
	path, _ := genTrace(t, smallTrace(50, 8), TraceMooncake)
	out := filepath.Join(t.TempDir(), "wl.jsonl")
	var stdout, log bytes.Buffer
	var warned []string
	warn := func(w ...string) { warned = append(warned, w...) }
	tr, err := ReadTrace(context.Background(), path, TraceSpec{Format: TraceMooncake, BlockSize: 16, FixedLength: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Emit(context.Background(), out, &stdout, &log, warn); err != nil {
		t.Fatal(err)
	}
	w, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("workload: 50 requests  sha256 %s  %s\n", w.SHA256, out); stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	if !bytes.Contains(log.Bytes(), []byte("workload: read 50 trace lines, kept 50")) || len(warned) != 0 {
		t.Errorf("log %q, warnings %q", log.String(), warned)
	}
	for _, tc := range []struct {
		spec TraceSpec
		want string
	}{
		{TraceSpec{Format: "sharegpt"}, `--format "sharegpt"`},
		{TraceSpec{Format: TraceMooncake, TimeScale: -1}, "--time-scale"},
		{TraceSpec{Format: TraceMooncake, BlockSize: -2}, "--block-size"},
		{TraceSpec{Format: TraceMooncake, Limit: -1}, "--limit"},
	} {
		err := tc.spec.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Validate %v, want an error naming %q", tc.spec, err, tc.want)
		}
		if _, rerr := ReadTrace(context.Background(), path, tc.spec); rerr == nil || rerr.Error() != err.Error() {
			t.Errorf("%+v: ReadTrace %v, want Validate's error %v", tc.spec, rerr, err)
		}
	}
}

// TestTraceInterrupt: a cancelled context writes nothing.
func TestTraceInterrupt(t *testing.T) {
	path, _ := genTrace(t, smallTrace(50, 9), TraceMooncake)
	tr, err := ReadTrace(context.Background(), path, TraceSpec{Format: TraceMooncake, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "wl.jsonl")
	if err := tr.Emit(ctx, out, &bytes.Buffer{}, &bytes.Buffer{}, func(...string) {}); err == nil {
		t.Fatal("no error")
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("a file was written")
	}
}

// mcRow is a Mooncake trace row as Parquet stores it.
type mcRow struct {
	Timestamp    float64 `parquet:"timestamp"`
	InputLength  int64   `parquet:"input_length"`
	OutputLength int32   `parquet:"output_length"`
	HashIDs      []int64 `parquet:"hash_ids,list"`
	Session      string  `parquet:"session_id"`
}

// TestTraceParquet: a Mooncake trace stored as Parquet gives the requests
// its JSON Lines form gives; the extra column is reported; a row that
// breaks a bound names its row.
func TestTraceParquet(t *testing.T) {
	path, src := genTrace(t, smallTrace(60, 11), TraceMooncake)
	rows := make([]mcRow, len(src))
	for i, q := range src {
		rows[i] = mcRow{Timestamp: float64(q.TimestampMs), InputLength: int64(q.Input), OutputLength: int32(q.Output), HashIDs: q.HashIDs, Session: "s"}
	}
	pq := filepath.Join(t.TempDir(), "trace.parquet")
	if err := parquet.WriteFile(pq, rows); err != nil {
		t.Fatal(err)
	}
	spec := TraceSpec{Format: TraceMooncake, BlockSize: 16}
	want, _, _ := replay(t, path, spec)
	got, _, st := replay(t, pq, spec)
	for i := range want.Requests {
		a, b := want.Requests[i], got.Requests[i]
		if a.ID != b.ID || lcp(a.PromptTokens, b.PromptTokens) != len(a.PromptTokens) || *a.ArrivalOffsetS != *b.ArrivalOffsetS || a.MaxTokens != b.MaxTokens {
			t.Fatalf("request %d: %s vs %s", i, a.ID, b.ID)
		}
	}
	if strings.Join(st.Ignored, ",") != "session_id" {
		t.Errorf("ignored %q", st.Ignored)
	}
	rows[7].OutputLength = -3
	parquet.WriteFile(pq, rows)
	if _, err := ReadTrace(context.Background(), pq, spec); err == nil || !strings.Contains(err.Error(), `trace.parquet: row 8: "output_length" must be a whole number of tokens`) {
		t.Errorf("err %v", err)
	}
	if _, err := ReadTrace(context.Background(), pq, TraceSpec{Format: TraceAzure}); err == nil || !strings.Contains(err.Error(), "only Mooncake traces are read from Parquet") {
		t.Errorf("err %v", err)
	}
	type partial struct {
		Timestamp int64 `parquet:"timestamp"`
	}
	parquet.WriteFile(pq, []partial{{1}})
	if _, err := ReadTrace(context.Background(), pq, spec); err == nil || !strings.Contains(err.Error(), `no column "input_length" (columns: timestamp)`) {
		t.Errorf("err %v", err)
	}
}

// TestTraceSameBytesOnAnyCPUCount: lines are made in parallel, text
// blocks cached and evicted in whatever order the goroutines run; the
// bytes do not depend on it.
func TestTraceSameBytesOnAnyCPUCount(t *testing.T) {
	path, _ := genTrace(t, smallTrace(200, 14), TraceMooncake)
	specs := []TraceSpec{{Format: TraceMooncake, BlockSize: 16, Seed: 5}}
	if tok := sharedTokenizerOrNil(t, "hf/llama3/tokenizer.json"); tok != nil {
		specs = append(specs, TraceSpec{Format: TraceMooncake, BlockSize: 16, Seed: 5, Text: &TextPrompts{Tokenizer: tok}})
	}
	for _, spec := range specs {
		var got [][]byte
		for _, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			_, b, _ := replay(t, path, spec)
			runtime.GOMAXPROCS(old)
			got = append(got, b)
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("text %v: GOMAXPROCS 1 and 4 give different bytes", spec.Text != nil)
		}
		if spec.Text != nil { // blocks made again after eviction are the same text
			tr, err := ReadTrace(context.Background(), path, spec)
			if err != nil {
				t.Fatal(err)
			}
			tr.tw.text.cacheMax = 3
			var b bytes.Buffer
			if _, err := tr.WriteTo(context.Background(), &b); err != nil || !bytes.Equal(b.Bytes(), got[0]) {
				t.Errorf("a 3-block text cache gives other bytes (%v)", err)
			}
		}
	}
}

// sharedTokenizerOrNil is sharedTokenizer without the skip.
func sharedTokenizerOrNil(t *testing.T, rel string) *tokenizer.Tokenizer {
	if _, err := os.Stat(filepath.Join(tokDir, rel)); err != nil {
		return nil
	}
	return sharedTokenizer(t, rel)
}
