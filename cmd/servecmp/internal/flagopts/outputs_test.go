package flagopts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
)

func TestOutputsValidate(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.jsonl")
	if err := os.WriteFile(wl, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, recs := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.jsonl")
	for _, tc := range []struct {
		name string
		o    Outputs
		want string // "" for no error
	}{
		{"ok", Outputs{Out: res, Records: recs, Progress: "auto", MaxFailedShare: 0.5}, ""},
		{"stdout", Outputs{Out: "-", Progress: "off", MaxFailedShare: 1}, ""},
		{"progress", Outputs{Progress: "sometimes"}, `--progress "sometimes"`},
		{"share", Outputs{Progress: "on", MaxFailedShare: 1.5}, "--max-failed-share 1.5"},
		{"out is input", Outputs{Out: wl, Progress: "on"}, "--out"},
		{"records is input", Outputs{Records: wl, Progress: "on"}, "--records"},
		{"same file", Outputs{Out: res, Records: res, Progress: "on"}, "--records"},
		{"no dir", Outputs{Out: filepath.Join(dir, "none", "r.json"), Progress: "on"}, "--out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate(wl)
			var ue *cli.UsageError
			if (err == nil) != (tc.want == "") || (err != nil && (!strings.Contains(err.Error(), tc.want) || !errors.As(err, &ue))) {
				t.Errorf("Validate: %v; want an error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestShowsProgress(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		terminal bool
		want     bool
	}{{"on", false, true}, {"off", true, false}, {"auto", true, true}, {"auto", false, false}} {
		if got := (&Outputs{Progress: tc.mode}).ShowsProgress(tc.terminal); got != tc.want {
			t.Errorf("%s, terminal %v: %v, want %v", tc.mode, tc.terminal, got, tc.want)
		}
	}
}
