package kineto

import (
	"context"
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
