package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/check/checkreport"
)

// Job is one pre-flight check as servecmp check gives it: the two
// targets, the model both get unless a target names its own, the
// workload file and how many of its requests to send (Limit <= 0: all),
// the quality status to record and the file holding the API key ("":
// $OPENAI_API_KEY).
type Job struct {
	A, B                        Target
	Model, Workload, APIKeyFile string
	Limit                       int
	Quality                     checkreport.Quality
	Options                     Options
}

// Validate checks the job before any request; its messages name the
// flags (--a, --engine-a, --quality, ...).
func (j *Job) Validate() error {
	if j.A.URL == "" || j.B.URL == "" || j.Workload == "" {
		return errors.New("need --a URL, --b URL and --workload FILE")
	}
	for _, u := range []string{j.A.URL, j.B.URL} {
		if err := client.ValidateBaseURL(u); err != nil {
			return err
		}
	}
	flags := []string{"--engine-a", "--engine-b", "--quality"}
	for i, err := range []error{j.A.Validate(), j.B.Validate(), j.Quality.Validate()} {
		if err != nil {
			return fmt.Errorf("%s: %v", flags[i], err)
		}
	}
	return nil
}

// Run reads the API key and runs the check (RunFile), writing a progress
// line every 10 requests and at the end to progress.
func (j *Job) Run(ctx context.Context, progress io.Writer) (*checkreport.Report, error) {
	a, b := j.A, j.B
	a.Model, b.Model = cmp.Or(a.Model, j.Model), cmp.Or(b.Model, j.Model)
	key, err := benchmark.ReadAPIKey(j.APIKeyFile)
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
	return RunFile(ctx, a, b, j.Workload, j.Limit, j.Quality, opt)
}
