package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/servecmp/servecmp/internal/httppolicy"
	"github.com/servecmp/servecmp/internal/redact"
)

// Profiler APIs servecmp drives.
const (
	APIVLLM   = "vllm"   // POST /start_profile, POST /stop_profile, no body
	APISGLang = "sglang" // POST /start_profile with a JSON body, POST /stop_profile
)

// DefaultActivities are SGLang's torch-profiler activities; use
// ["CUDA_PROFILER"] for an nsys capture.
var DefaultActivities = []string{"CPU", "GPU"}

// needs says, per engine, what the server must be started with for its
// profiler endpoints to exist.
const needs = "vLLM: start the server with --profiler-config '{\"profiler\": \"torch\", \"torch_profiler_dir\": \"DIR\"}' (or \"cuda\" under nsys; older versions: VLLM_TORCH_PROFILER_DIR=DIR); SGLang: any server (SGLANG_TORCH_PROFILER_DIR sets its default directory)"

// APIFor returns the profiler API of a detected engine, or an error that
// says what is needed when the engine has none servecmp can drive.
func APIFor(engine string) (string, error) {
	switch engine {
	case "vllm":
		return APIVLLM, nil
	case "sglang":
		return APISGLang, nil
	}
	return "", fmt.Errorf("engine %q has no profiler API servecmp can drive: profile needs vLLM or SGLang (%s)", engine, needs)
}

// StartRequest is what the start call sends.
type StartRequest struct {
	OutputDir  string   // SGLang output_dir; "" = the server's default
	NumSteps   int      // SGLang num_steps; 0 = until stopped
	Activities []string // SGLang activities; nil = DefaultActivities
}

// sglangStart is SGLang's ProfileReqInput, the fields servecmp sets.
type sglangStart struct {
	OutputDir  string   `json:"output_dir,omitempty"`
	NumSteps   int      `json:"num_steps,omitempty"`
	Activities []string `json:"activities"`
}

// StartBody is the start call's body for api: none for vLLM (its start
// takes no parameters; the directory is the server's --profiler-config),
// a ProfileReqInput JSON object for SGLang.
func StartBody(api string, q StartRequest) []byte {
	if api != APISGLang {
		return nil
	}
	b := sglangStart{OutputDir: q.OutputDir, NumSteps: q.NumSteps, Activities: q.Activities}
	if b.Activities == nil {
		b.Activities = DefaultActivities
	}
	out, _ := json.Marshal(b) // plain strings and ints: cannot fail
	return out
}

// Call is one profiler call as the result records it. Times are seconds
// on the run's clock.
type Call struct {
	Path       string          `json:"path"`
	Body       json.RawMessage `json:"body,omitempty"` // what was sent
	RequestedS float64         `json:"requested_s"`
	// AcknowledgedS is when the answer arrived; nil when none did.
	AcknowledgedS *float64 `json:"acknowledged_s"`
	Status        int      `json:"status,omitempty"`
	Answer        string   `json:"answer"` // the answer's body, trimmed
	Error         string   `json:"error,omitempty"`
}

// maxAnswer bounds the answer text kept in a Call.
const maxAnswer = 500

// post sends one profiler call. since is the run's clock. A transport
// error, a timeout or a non-2xx answer is returned, naming the path.
func post(ctx context.Context, hc *http.Client, base, apiKey, path string, body []byte, timeout time.Duration, since func() float64) (Call, error) {
	c := Call{Path: path, Body: body}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return c, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	c.RequestedS = since()
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("POST %s: no answer within %s", path, timeout)
		} else {
			err = fmt.Errorf("POST %s: %s", path, redact.Text(err.Error(), apiKey))
		}
		c.Error = err.Error()
		return c, err
	}
	b, _ := httppolicy.ReadBody(resp.Body, 64<<10) // a longer answer is cut, then clipped
	resp.Body.Close()
	ack := since()
	c.AcknowledgedS, c.Status = &ack, resp.StatusCode
	// The answer is stored in the result: scrubbed (the key, shapes of
	// secrets, URL credentials) before it is clipped.
	c.Answer = redact.Clip(strings.TrimSpace(string(b)), maxAnswer, apiKey)
	if resp.StatusCode/100 != 2 {
		err = fmt.Errorf("POST %s: HTTP %d %s", path, resp.StatusCode, oneLine(c.Answer))
		if resp.StatusCode == http.StatusNotFound {
			err = fmt.Errorf("%v: the server has no profiler endpoint (%s)", err, needs)
		}
		c.Error = err.Error()
		return c, err
	}
	return c, nil
}

// probe asks, before any load, whether the server has the profiler's
// start endpoint, without starting anything: OPTIONS /start_profile. A
// router answers another method on an existing POST endpoint with 405
// (FastAPI, as vLLM and SGLang serve, and Go's mux) and a path it does
// not route with 404. A 404 counts only when the same question about
// /v1/completions, which every engine routes, is not answered 404 too
// (a server that answers every OPTIONS with 404 tells nothing). Only
// then is it an error, saying what the server must be started with; any
// other answer, or none, leaves the start call to tell.
func probe(ctx context.Context, hc *http.Client, base, apiKey string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if options(ctx, hc, base, apiKey, "/start_profile") != http.StatusNotFound ||
		options(ctx, hc, base, apiKey, "/v1/completions") == http.StatusNotFound {
		return nil
	}
	return fmt.Errorf("the server has no profiler endpoint (/start_profile is not routed; probed before any request, none was sent): %s", needs)
}

// options sends OPTIONS path and returns the status, or 0 when no answer
// came.
func options(ctx context.Context, hc *http.Client, base, apiKey, path string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodOptions, strings.TrimRight(base, "/")+path, nil)
	if err != nil {
		return 0
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	httppolicy.Drain(resp.Body, 64<<10)
	resp.Body.Close()
	return resp.StatusCode
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
