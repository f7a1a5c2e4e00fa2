package check

import (
	"context"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/check/checkreport"
)

func TestJobValidate(t *testing.T) {
	good := Job{A: Target{URL: "http://a:1"}, B: Target{URL: "http://b:2"}, Workload: "w.jsonl", Quality: checkreport.Quality{Status: "not-run"}}
	for _, tc := range []struct {
		name string
		edit func(*Job)
		want string // "" for none
	}{
		{"ok", func(*Job) {}, ""},
		{"no b", func(j *Job) { j.B.URL = "" }, "need --a URL, --b URL and --workload FILE"},
		{"no workload", func(j *Job) { j.Workload = "" }, "need --a URL"},
		{"bad url", func(j *Job) { j.A.URL = "ftp://a" }, "ftp"},
		{"engine", func(j *Job) { j.B.Engine = "nope" }, "--engine-b: engine \"nope\""},
		{"quality", func(j *Job) { j.Quality.Status = "maybe" }, "--quality: quality \"maybe\""},
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
	j := Job{A: Target{URL: "http://a:1"}, B: Target{URL: "http://b:2"}, Workload: "w.jsonl", APIKeyFile: t.TempDir() + "/none"}
	if rep, err := j.Run(context.Background(), nil); rep != nil || err == nil {
		t.Errorf("missing API key file: report %v, error %v; want no report and an error", rep, err)
	}
}
