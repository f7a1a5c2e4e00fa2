package flagopts

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
	"github.com/servecmp/servecmp/internal/infile"
)

// optionsWorkload writes a workload of n requests, each with an arrival
// offset when offsets is set, and returns its path.
func optionsWorkload(t *testing.T, n int, offsets bool) string {
	t.Helper()
	l, err := workload.ParseLength("4")
	if err != nil {
		t.Fatal(err)
	}
	spec := workload.RandomSpec{Num: n, InputLen: l, OutputLen: l, Vocab: 100}
	if offsets {
		spec.RequestRate, spec.Burstiness = 10, 1
	}
	reqs, err := workload.Random(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "wl.jsonl")
	if _, err := workload.WriteFile(p, reqs); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOptionsConfig(t *testing.T) {
	plain, trace := optionsWorkload(t, 3, false), optionsWorkload(t, 3, true)
	base := func(wl string, set ...string) Bench {
		return Bench{URL: "http://h:1/", Workload: wl, Engine: "auto", Arrival: result.ArrivalPoisson, Burstiness: 1,
			Drain: result.DrainWait, Concurrency: 4, Rate: 2.5, SweepConcurrency: "1, 2,8", SweepRate: "0.5,1",
			Changed: func(n string) bool { return slices.Contains(set, n) }}
	}
	tests := []struct {
		name  string
		o     Bench
		flag  string // the flag the error names; "-" for a combination; "" for no error
		mode  result.Mode
		sweep []float64
	}{
		{"closed loop", base(plain, "concurrency"), "", result.ModeConcurrency, nil},
		{"open loop", base(plain, "rate", "arrival", "burstiness"), "burstiness", "", nil},
		{"gamma", func() Bench { o := base(plain, "rate", "burstiness"); o.Arrival = result.ArrivalGamma; return o }(), "", result.ModeRate, nil},
		{"sweep concurrency", base(plain, "sweep-concurrency"), "", result.ModeConcurrency, []float64{1, 2, 8}},
		{"sweep rate", base(plain, "sweep-rate"), "", result.ModeRate, []float64{0.5, 1}},
		{"trace", base(trace), "", result.ModeTrace, nil},
		{"no load", base(plain), "-", "", nil},
		{"two loads", base(plain, "rate", "concurrency"), "-", "", nil},
		{"sweep rate of a trace", base(trace, "sweep-rate"), "sweep-rate", "", nil},
		{"cap on a closed loop", base(plain, "concurrency", "max-concurrency"), "max-concurrency", "", nil},
		{"arrival on a closed loop", base(plain, "concurrency", "arrival"), "arrival", "", nil},
		{"drain timeout with cancel", func() Bench {
			o := base(plain, "rate", "drain-timeout")
			o.Drain = result.DrainCancel
			return o
		}(), "drain-timeout", "", nil},
		{"bad sweep value", func() Bench {
			o := base(plain, "sweep-concurrency")
			o.SweepConcurrency = "1,2.5"
			return o
		}(), "sweep-concurrency", "", nil},
		{"empty sweep", func() Bench { o := base(plain, "sweep-rate"); o.SweepRate = " , "; return o }(), "sweep-rate", "", nil},
		{"no url", func() Bench { o := base(plain, "concurrency"); o.URL = ""; return o }(), "url", "", nil},
		{"bad engine", func() Bench { o := base(plain, "concurrency"); o.Engine = "x"; return o }(), "engine", "", nil},
		{"bad manifest", func() Bench { o := base(plain, "concurrency"); o.Manifest = []string{"novalue"}; return o }(), "manifest", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.o.Config()
			var ue *cli.UsageError
			switch {
			case tc.flag == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.flag == "":
			case !errors.As(err, &ue):
				t.Fatalf("error %v, want a usage error", err)
			case tc.flag == "-" && strings.HasPrefix(err.Error(), "--") && strings.Contains(err.Error(), ": "),
				tc.flag != "-" && !strings.HasPrefix(err.Error(), "--"+tc.flag):
				t.Fatalf("error %v, want it to name %q", err, tc.flag)
			}
			if tc.flag != "" {
				return
			}
			if cfg.Load.Mode != tc.mode || !slices.Equal(cfg.SweepValues, tc.sweep) {
				t.Errorf("mode %q sweep %v, want %q %v", cfg.Load.Mode, cfg.SweepValues, tc.mode, tc.sweep)
			}
			if cfg.Metrics.URL != "http://h:1/metrics" {
				t.Errorf("metrics URL %q", cfg.Metrics.URL)
			}
			if tc.mode != result.ModeRate && (cfg.Load.Arrival != "" || cfg.Load.Burstiness != 0) {
				t.Errorf("arrival settings kept for %s: %+v", tc.mode, cfg.Load)
			}
		})
	}
}

func TestReadAPIKey(t *testing.T) {
	dir := t.TempDir()
	key, empty := filepath.Join(dir, "key"), filepath.Join(dir, "empty")
	if err := os.WriteFile(key, []byte(" sk-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", " env-key ")
	for _, tc := range []struct{ file, want string }{{"", "env-key"}, {key, "sk-1"}, {empty, ""}, {filepath.Join(dir, "none"), ""}} {
		got, err := ReadAPIKey(tc.file)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("ReadAPIKey(%q) = %q, %v; want %q", tc.file, got, err, tc.want)
		}
	}
}

// TestReadAPIKeyBounded: a key file is read through the one opener of
// inputs with a size cap: a file over MaxKeyFile is refused, naming it.
func TestReadAPIKeyBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("k"), MaxKeyFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAPIKey(big); err == nil || !strings.Contains(err.Error(), big) || !errors.Is(err, infile.ErrTooLarge) {
		t.Fatalf("big key file: %v", err)
	}
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte(" sk-abc \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := ReadAPIKey(ok); err != nil || k != "sk-abc" {
		t.Fatalf("key %q, %v", k, err)
	}
}
