package kineto

import (
	"compress/gzip"
	"context"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
)

// TestReadHostileTimes checks that device work with a negative start, a
// duration beyond event.MaxDur or times beyond event.MaxTime is dropped
// and counted, never truncated downstream, and that host events may
// start before 0.
func TestReadHostileTimes(t *testing.T) {
	trace := `{"traceEvents": [
	  {"ph": "X", "cat": "kernel", "name": "good", "pid": 0, "tid": 1, "ts": 10, "dur": 5, "args": {"device": 0}},
	  {"ph": "X", "cat": "kernel", "name": "negative start", "pid": 0, "tid": 1, "ts": -10, "dur": 5, "args": {"device": 0}},
	  {"ph": "X", "cat": "kernel", "name": "too long", "pid": 0, "tid": 1, "ts": 10, "dur": 36028797018964, "args": {"device": 0}},
	  {"ph": "X", "cat": "kernel", "name": "too late", "pid": 0, "tid": 1, "ts": 4611686018427388, "dur": 1, "args": {"device": 0}},
	  {"ph": "X", "cat": "kernel", "name": "exponent", "pid": 0, "tid": 1, "ts": 1e15, "dur": 1e14, "args": {"device": 0}},
	  {"ph": "X", "cat": "user_annotation", "name": "early host range", "pid": 7, "tid": 1, "ts": -3, "dur": 20},
	  {"ph": "X", "cat": "user_annotation", "name": "far host range", "pid": 7, "tid": 1, "ts": -4611686018427388, "dur": 1}
	]}`
	c, err := Read(context.Background(), strings.NewReader(trace), "x", event.All)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Ranks[0]
	if len(r.Work) != 1 || c.Names.Name(r.Work[0].Name) != "good" {
		t.Errorf("work %+v, want only the good kernel", r.Work)
	}
	if len(r.Ranges) != 1 || r.Ranges[0].Start != -3000 {
		t.Errorf("ranges %+v, want the early host range", r.Ranges)
	}
	if !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.HasPrefix(w, "dropped 5 events with out-of-range times") }) {
		t.Errorf("warnings %q", c.Warnings)
	}
}

// gzipStream is a gzip stream of head, then body repeated n times, then
// tail, compressed only as fast as it is read (a reader that stops early
// stops the writer).
func gzipStream(t *testing.T, head, body string, n int64, tail string) io.Reader {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestCompression)
		_, err := io.WriteString(zw, head)
		b := []byte(body)
		for i := int64(0); i < n && err == nil; i++ {
			_, err = zw.Write(b)
		}
		if err == nil {
			_, err = io.WriteString(zw, tail)
		}
		if err == nil {
			err = zw.Close()
		}
		pw.CloseWithError(err)
	}()
	t.Cleanup(func() { pr.Close() })
	return pr
}

// TestReadHostileBombs is the case: a small gzip holding a 1 GiB
// kernel name, and one holding 30 M events, end in a one-line error (a
// bound named) while Read holds little memory; a long name under the
// value bound is a counted drop.
func TestReadHostileBombs(t *testing.T) {
	const ev = `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":1,"dur":1,"args":{"device":0}},`
	for _, tc := range []struct {
		name string
		r    func() io.Reader
		want string
	}{
		{"1 GiB kernel name", func() io.Reader {
			return gzipStream(t, `{"traceEvents":[{"ph":"X","cat":"kernel","name":"`, strings.Repeat("a", 1<<20), 1<<10, `"}]}`)
		}, "a value longer than"},
		{"30 M events", func() io.Reader {
			return gzipStream(t, `{"traceEvents":[`, ev, 30_000_000, `{}]}`)
		}, "decompression bomb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Read(context.Background(), tc.r(), "bomb.json.gz", event.All)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line saying %q", err, tc.want)
			}
			if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 256<<20 {
				t.Errorf("heap grew by %d MiB", grown>>20)
			}
		})
	}
}

// TestReadEventBound: past the bound on kept events, Read stops with an
// error naming it (the bound lowered here to keep the test small).
func TestReadEventBound(t *testing.T) {
	defer func(n int) { maxEvents = n }(maxEvents)
	maxEvents = 100
	const ev = `{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":1,"dur":1,"args":{"device":0}},`
	doc := `{"traceEvents":[` + strings.Repeat(ev, 101) + `{}]}`
	_, err := Read(context.Background(), strings.NewReader(doc), "x", event.All)
	if err == nil || !strings.Contains(err.Error(), "more than 100 events") {
		t.Fatalf("error %v", err)
	}
	doc = `{"traceEvents":[` + strings.Repeat(ev, 100) + `{}]}`
	if _, err := Read(context.Background(), strings.NewReader(doc), "x", event.All); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
}

// TestReadLongNameDropped: an event whose name is over MaxNameBytes is
// dropped and counted, the rest of the trace read.
func TestReadLongNameDropped(t *testing.T) {
	long := strings.Repeat("n", MaxNameBytes+1)
	doc := `{"traceEvents":[
	  {"ph":"X","cat":"kernel","name":"` + long + `","pid":0,"tid":1,"ts":1,"dur":1,"args":{"device":0}},
	  {"ph":"X","cat":"kernel","name":"ok","pid":0,"tid":1,"ts":2,"dur":1,"args":{"device":0}}]}`
	c, err := Read(context.Background(), strings.NewReader(doc), "x", event.All)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ranks[0].Work) != 1 || !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.HasPrefix(w, "dropped 1 events with names over") }) {
		t.Fatalf("work %d, warnings %q", len(c.Ranks[0].Work), c.Warnings)
	}
}
