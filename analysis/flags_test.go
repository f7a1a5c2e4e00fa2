package analysis

import (
	"strings"
	"testing"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]int64{"2": 2e9, "1.5s": 1.5e9, "200ms": 2e8, "3e9ns": 3e9, "10us": 1e4, "10µs": 1e4, "1m30s": 90e9, "0": 0} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "abc", "1.5 parsecs", "NaN"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q): no error", in)
		}
	}
}

func TestFlagsSummary(t *testing.T) {
	o, err := Flags{Window: "2.5ms:4ms", SkipStart: "1ms", SkipEnd: "2us", Iteration: "^step", Work: "requests=4,output_tokens=40"}.Summary()
	if err != nil || !o.Window.Explicit || o.Window.Start != 2.5e6 || o.Window.End != 4e6 || o.Window.SkipStart != 1e6 ||
		o.Window.SkipEnd != 2e3 || o.Iteration == nil || o.Work == nil || o.Work.Requests != 4 {
		t.Errorf("Summary: %+v, %v", o, err)
	}
	for _, tc := range []struct {
		f    Flags
		want string
	}{
		{Flags{Window: "5:2"}, `--window "5:2": end must be after start`},
		{Flags{Window: "2"}, "START:END"},
		{Flags{Window: "1:x"}, `--window "1:x": end:`},
		{Flags{Window: "1:2", WindowNVTX: "x"}, "exclude"},
		{Flags{WindowNVTX: "("}, "--window-nvtx:"},
		{Flags{Iteration: "["}, "--iteration-nvtx:"},
		{Flags{SkipStart: "soon"}, `--skip-start "soon"`},
		{Flags{SkipEnd: "-1"}, `--skip-end "-1"`},
		{Flags{Work: "requests=many"}, "--work:"},
	} {
		if _, err := tc.f.Summary(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.f, err, tc.want)
		}
	}
}
