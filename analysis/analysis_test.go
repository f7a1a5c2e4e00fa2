package analysis

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
	"github.com/servecmp/servecmp/rules"
)

// export writes dir/name: one process (pid) with a few kernels on device
// 0, and RANK=rank in its environment when rank != "".
func export(t *testing.T, dir, name string, pid int64, rank string) string {
	t.Helper()
	b := nsystest.New(nsystest.Schema2024)
	b.Process(pid, "python3")
	if rank != "" {
		b.Env("RANK", rank)
	}
	for i, k := range []string{"flash_fwd_kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "mystery_kernel"} {
		b.Kernel(nsystest.K{PID: pid, Stream: 7, Start: int64(1000 + 2000*i), End: int64(2000 + 2000*i), Name: k})
	}
	p := filepath.Join(dir, name)
	if err := b.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func labels(rep *classify.Report) []string {
	var out []string
	for _, r := range rep.Ranks {
		out = append(out, r.Rank+"/"+r.LabelFrom)
	}
	return out
}

// TestRunLabels: the label policy over several files, through Run.
func TestRunLabels(t *testing.T) {
	dir := t.TempDir()
	a := export(t, dir, "a.sqlite", 100, "0")
	b := export(t, dir, "b.sqlite", 200, "0")
	c := export(t, dir, "c.sqlite", 300, "")
	set := rules.Default()
	for _, tc := range []struct {
		name    string
		inputs  []Input
		want    []string
		warning string // a warning that must be present
		err     string
	}{
		{"env labels", []Input{{Path: a}, {Path: c}}, []string{"0/env:RANK", "c.sqlite:300/0/default"}, "", ""},
		{"env labels collide across files", []Input{{Path: a}, {Path: b}},
			[]string{"a.sqlite:0/env:RANK", "b.sqlite:0/env:RANK"}, `rank label "0" is used by several inputs`, ""},
		{"user labels", []Input{{Label: "x", Path: a}, {Label: "y", Path: b}}, []string{"x/user", "y/user"}, "", ""},
		{"user label beside a colliding env label", []Input{{Label: "0", Path: a}, {Path: b}},
			[]string{"0/user", "b.sqlite:0/env:RANK"}, "b.sqlite's is shown as", ""},
		{"user duplicates refused", []Input{{Label: "x", Path: a}, {Label: "x", Path: b}}, nil, "", `duplicate rank label "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Run(context.Background(), tc.inputs, set, Options{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := labels(rep); !slices.Equal(got, tc.want) {
				t.Errorf("labels %q, want %q", got, tc.want)
			}
			if tc.warning != "" && !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, tc.warning) }) {
				t.Errorf("warnings %q lack %q", rep.Warnings, tc.warning)
			}
			if rep.RulesDigest != set.Digest {
				t.Errorf("digest %q", rep.RulesDigest)
			}
		})
	}
}

// TestRunHintsAndErrors: hints are warnings naming the rank; a failing
// input is the error (not the cancellation of the others); Parallelism 1
// gives the same report as the default.
func TestRunHintsAndErrors(t *testing.T) {
	dir := t.TempDir()
	a := export(t, dir, "a.sqlite", 100, "0")
	b := export(t, dir, "b.sqlite", 200, "1")
	set := rules.Default()
	rep, err := Run(context.Background(), []Input{{Path: b}, {Path: a}}, set, Options{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.HasPrefix(w, "rank 0: hint: ") }) {
		t.Errorf("no hint for rank 0 in %q", rep.Warnings)
	}
	if len(rep.Ranks) != 2 || len(rep.Ranks[0].Explain) == 0 {
		t.Errorf("ranks %d, explain rows %d", len(rep.Ranks), len(rep.Ranks[0].Explain))
	}
	one, err := Run(context.Background(), []Input{{Path: a}, {Path: b}}, set, Options{Explain: true, Parallelism: 1})
	if err != nil || !slices.Equal(labels(one), labels(rep)) || one.BottleneckRank != rep.BottleneckRank {
		t.Errorf("parallelism 1: %v %q", err, labels(one))
	}
	missing := filepath.Join(dir, "missing.sqlite")
	bad := filepath.Join(dir, "bad.sqlite")
	if err := os.WriteFile(bad, []byte("not a capture at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), []Input{{Path: a}, {Path: missing}, {Path: bad}}, set, Options{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "missing.sqlite") && !strings.Contains(err.Error(), "bad.sqlite") {
		t.Errorf("strict: first failure: %v", err)
	}
	// by default bad inputs are skipped, each with one warning naming it
	rep, err = Run(context.Background(), []Input{{Path: a}, {Path: missing}, {Path: bad}}, set, Options{})
	if err != nil || len(rep.Ranks) != 1 {
		t.Fatalf("skipping: %v", err)
	}
	for _, f := range []string{"missing.sqlite", "bad.sqlite"} {
		n := 0
		for _, w := range rep.Warnings {
			if strings.HasPrefix(w, "skipped: ") && strings.Contains(w, f) && !strings.Contains(w, "\n") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d skip warnings for %s in %q", n, f, rep.Warnings)
		}
	}
	_, err = Run(context.Background(), []Input{{Path: missing}, {Path: bad}}, set, Options{})
	if err == nil || !strings.Contains(err.Error(), "none of the 2 inputs") || !strings.Contains(err.Error(), "missing.sqlite") {
		t.Errorf("every input bad: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, []Input{{Path: a}}, set, Options{}); err == nil {
		t.Error("cancelled: no error")
	}
	if _, err := Run(context.Background(), nil, set, Options{}); err == nil {
		t.Error("no inputs: no error")
	}
}

func TestParseInputs(t *testing.T) {
	dir := t.TempDir()
	a := export(t, dir, "a.sqlite", 100, "0")
	export(t, dir, "b.sqlite", 200, "1")
	eq := filepath.Join(t.TempDir(), "x=y.sqlite") // a file whose name holds '='
	if err := os.WriteFile(eq, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ParseInputs([]string{"l=" + a, a, "job=" + dir, eq, "/nonexistent/z.sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Input{{"l", a}, {"", a}, {"job/a.sqlite", filepath.Join(dir, "a.sqlite")}, {"job/b.sqlite", filepath.Join(dir, "b.sqlite")},
		{"", eq}, {"", "/nonexistent/z.sqlite"}}
	if !slices.Equal(got, want) {
		t.Errorf("ParseInputs = %q, want %q", got, want)
	}
	if p := Paths(got); len(p) != len(got) || p[0] != a {
		t.Errorf("Paths = %q", p)
	}
}

// TestRunCaptureWarningsOnce: a capture's own warnings are report
// warnings naming the file, not copied into each of its ranks.
func TestRunCaptureWarningsOnce(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	for _, pid := range []int64{100, 200} {
		b.Process(pid, "python3")
		b.Kernel(nsystest.K{PID: pid, Stream: 7, Start: 1000, End: 2000, Name: "flash_fwd_kernel"})
		b.Kernel(nsystest.K{PID: pid, Stream: 7, Start: 5000, End: 4000, Name: "flash_fwd_kernel"}) // end < start: dropped
	}
	p := b.Write(t)
	rep, err := Run(context.Background(), []Input{{Path: p}}, rules.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range rep.Warnings {
		if strings.HasPrefix(w, p+": dropped ") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("capture warning %d times in %q", n, rep.Warnings)
	}
	for _, r := range rep.Ranks {
		for _, w := range r.Warnings {
			if strings.Contains(w, "dropped") {
				t.Errorf("rank %s carries the capture warning %q", r.Rank, w)
			}
		}
	}
}
