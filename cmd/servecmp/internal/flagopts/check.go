package flagopts

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/check"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
)

// CheckJob is one pre-flight check as servecmp check's flags give it: the two
// targets, the model both get unless a target names its own, the
// workload file and how many of its requests to send (Limit <= 0: all),
// the quality status to record and the file holding the API key ("":
// $OPENAI_API_KEY).
type CheckJob struct {
	A, B                        check.Target
	Model, Workload, APIKeyFile string
	Limit                       int
	Quality                     checkreport.Quality
	Options                     check.Options
}

// Validate checks the job before any request; its errors are usage
// errors naming the flags (--a, --engine-a, --quality, ...).
func (j *CheckJob) Validate() error {
	if j.A.URL == "" || j.B.URL == "" || j.Workload == "" {
		return cli.Usagef("need --a URL, --b URL and --workload FILE")
	}
	j.A.URL, j.B.URL = client.TrimV1(j.A.URL), client.TrimV1(j.B.URL)
	for _, u := range []string{j.A.URL, j.B.URL} {
		if err := client.ValidateBaseURL(u); err != nil {
			return &cli.UsageError{Err: err}
		}
	}
	flags := []string{"--engine-a", "--engine-b", "--quality"}
	for i, err := range []error{j.A.Validate(), j.B.Validate(), j.Quality.Validate()} {
		if err != nil {
			return cli.Usagef("%s: %v", flags[i], err)
		}
	}
	return nil
}

// Run reads the API key and runs the check (check.RunFile), writing a progress
// line every 10 requests and at the end to progress.
func (j *CheckJob) Run(ctx context.Context, progress io.Writer) (*checkreport.Report, error) {
	a, b := j.A, j.B
	a.Model, b.Model = cmp.Or(a.Model, j.Model), cmp.Or(b.Model, j.Model)
	key, err := ReadAPIKey(j.APIKeyFile)
	if err != nil {
		return nil, err
	}
	opt := j.Options
	opt.APIKey = key
	opt.Progress = func(done, total int) {
		if done == total || done%10 == 0 {
			fmt.Fprintf(progress, "check: %d/%d requests\n", done, total)
		}
	}
	return check.RunFile(ctx, a, b, j.Workload, j.Limit, j.Quality, opt)
}
