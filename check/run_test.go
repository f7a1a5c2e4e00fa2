package check

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check/checkreport"
)

func TestRunFile(t *testing.T) {
	a, same, diverging := fakeEngine(t, "ids", -1), fakeEngine(t, "ids", -1), fakeEngine(t, "ids", 1)
	defer a.Close()
	defer same.Close()
	defer diverging.Close()
	path := filepath.Join(t.TempDir(), "w.jsonl")
	if _, err := workload.WriteFile(path, wl().Requests); err != nil {
		t.Fatal(err)
	}
	q := checkreport.Quality{Status: "pass", Note: "eval"}
	for _, tc := range []struct {
		name  string
		b     string
		limit int
		want  error
		n     int
	}{
		{"all pass", same.URL, 0, nil, 2},
		{"limit", same.URL, 1, nil, 1},
		{"diverging", diverging.URL, 0, ErrFailed, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := RunFile(context.Background(), Target{URL: a.URL, Engine: "vllm"}, Target{URL: tc.b, Engine: "vllm"},
				path, tc.limit, q, Options{})
			if !errors.Is(err, tc.want) || rep == nil || len(rep.Requests) != tc.n || rep.Quality != q {
				t.Fatalf("RunFile: %v, %+v; want %v and %d requests", err, rep, tc.want, tc.n)
			}
		})
	}
	if rep, err := RunFile(context.Background(), Target{URL: a.URL}, Target{URL: a.URL}, path+".none", 0, q, Options{}); rep != nil || err == nil {
		t.Errorf("missing workload: %v, %v", rep, err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		err  error
		fail bool
	}{
		{Target{}.Validate(), false},
		{Target{Engine: "sglang"}.Validate(), false},
		{Target{Engine: "nope"}.Validate(), true},
		{checkreport.Quality{Status: "not-run"}.Validate(), false},
		{checkreport.Quality{Status: "maybe"}.Validate(), true},
	} {
		if (tc.err != nil) != tc.fail {
			t.Errorf("got %v, want failure %v", tc.err, tc.fail)
		}
	}
}
