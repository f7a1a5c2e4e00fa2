package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/internal/infile"
)

// Result is a profile run's result file: benchmark's result with the
// profile block added (the JSON object holds every benchmark field plus
// "profile"), so that every reader of benchmark results reads it too.
type Result struct {
	*result.Result
	Profile *Block `json:"profile"`
}

// Block is what the profile run did and what the window held.
type Block struct {
	API   string `json:"api"` // APIVLLM or APISGLang
	Start Call   `json:"start"`
	// Stop is nil (null) when no stop call was sent (the start failed).
	Stop *Call `json:"stop"`
	// StartS and StopS bound the window: start acknowledged and stop
	// requested, seconds on the run's clock. Both are 0 when the start
	// failed.
	StartS float64 `json:"start_s"`
	StopS  float64 `json:"stop_s"`
	// Steps is --profile-steps (SGLang num_steps); 0 = bounded by time.
	Steps int `json:"steps,omitempty"`
	// TraceDir is --trace-dir, or SGLang's output_dir; Files are the trace
	// files that appeared in it during the run.
	TraceDir   string   `json:"trace_dir"`
	Files      []string `json:"files"`
	WindowWork Work     `json:"window_work"`
}

// Work is the work completed inside the window (see the package doc).
type Work struct {
	Requests     int64 `json:"requests"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// DurationS is the window's length in seconds.
func (b *Block) DurationS() float64 { return b.StopS - b.StartS }

// ReadBlock reads the profile block of a result file written by
// servecmp profile. Errors name the file.
func ReadBlock(path string) (*Block, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseBlock(path, data)
}

// parseBlock parses the profile block of the result file data read from
// path.
func parseBlock(path string, data []byte) (*Block, error) {
	var doc struct {
		Schema  string `json:"schema"`
		Profile *Block `json:"profile"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if doc.Profile == nil {
		return nil, fmt.Errorf("%s: no profile block (write it with servecmp profile)", path)
	}
	if doc.Profile.StartS < 0 {
		return nil, fmt.Errorf("%s: the profile window starts before the run (%g s)", path, doc.Profile.StartS)
	}
	if doc.Profile.StopS <= doc.Profile.StartS {
		return nil, fmt.Errorf("%s: the profile window is empty (the profiler did not run)", path)
	}
	return doc.Profile, nil
}

// ErrNoWindow is wrapped by Run's error when the profiler never ran.
var ErrNoWindow = errors.New("no profile window")

// WindowWork counts the work completed in the window (from, to], seconds on
// the run's clock, from the measured records.
func WindowWork(recs []result.Record, from, to float64) Work {
	var w Work
	in := func(t float64) bool { return t > from && t <= to }
	for i := range recs {
		r := &recs[i]
		if !r.OK && r.ErrorClass != result.ClassCancelled {
			continue // a failed request's partial output never counts
		}
		if r.OK && in(r.SentS+r.DoneMs/1000) {
			w.Requests++
		}
		if r.TTFTMs > 0 && in(r.SentS+r.TTFTMs/1000) {
			w.InputTokens += int64(r.PromptTokens)
		}
		for j, t := range r.ChunkTimesMs {
			if in(r.SentS+t/1000) && j < len(r.ChunkTokens) {
				w.OutputTokens += int64(r.ChunkTokens[j])
			}
		}
	}
	return w
}

// WriteResult writes res as indented JSON to the file path (atomicfile),
// or to stdout when path is "-". An error writing the file names it.
func WriteResult(path string, stdout io.Writer, res *Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if b = append(b, '\n'); path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	return atomicfile.Write(path, b)
}
