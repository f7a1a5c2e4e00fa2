package flagopts

import (
	"context"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/check/checkreport"
)

func TestJobValidate(t *testing.T) {
	good := CheckJob{A: check.Target{URL: "http://a:1"}, B: check.Target{URL: "http://b:2"}, Workload: "w.jsonl", Quality: checkreport.Quality{Status: "not-run"}}
	for _, tc := range []struct {
		name string
		edit func(*CheckJob)
		want string // "" for none
	}{
		{"ok", func(*CheckJob) {}, ""},
		{"no b", func(j *CheckJob) { j.B.URL = "" }, "need --a URL, --b URL and --workload FILE"},
		{"no workload", func(j *CheckJob) { j.Workload = "" }, "need --a URL"},
		{"bad url", func(j *CheckJob) { j.A.URL = "ftp://a" }, "ftp"},
		{"engine", func(j *CheckJob) { j.B.Engine = "nope" }, "--engine-b: engine \"nope\""},
		{"quality", func(j *CheckJob) { j.Quality.Status = "maybe" }, "--quality: quality \"maybe\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := good
			tc.edit(&j)
			err := j.Validate()
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate: %v; want %q", err, tc.want)
			}
		})
	}
}

func TestJobRunMissingKeyFile(t *testing.T) {
	j := CheckJob{A: check.Target{URL: "http://a:1"}, B: check.Target{URL: "http://b:2"}, Workload: "w.jsonl", APIKeyFile: t.TempDir() + "/none"}
	if rep, err := j.Run(context.Background(), nil); rep != nil || err == nil {
		t.Errorf("missing API key file: report %v, error %v; want no report and an error", rep, err)
	}
}
