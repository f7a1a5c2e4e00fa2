package profile

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The start bodies are the shapes the real servers accept: vLLM's
// /start_profile takes no body (its profiler is configured at launch);
// SGLang's takes a ProfileReqInput JSON object whose fields include
// output_dir, num_steps and activities.
func TestStartBody(t *testing.T) {
	tests := []struct {
		name, api string
		q         StartRequest
		want      string
	}{
		{"vllm", APIVLLM, StartRequest{OutputDir: "/traces", NumSteps: 5}, ""},
		{"sglang default", APISGLang, StartRequest{}, `{"activities":["CPU","GPU"]}`},
		{"sglang dir steps", APISGLang, StartRequest{OutputDir: "/traces", NumSteps: 10}, `{"output_dir":"/traces","num_steps":10,"activities":["CPU","GPU"]}`},
		{"sglang nsys", APISGLang, StartRequest{Activities: []string{"CUDA_PROFILER"}}, `{"activities":["CUDA_PROFILER"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(StartBody(tt.api, tt.q)); got != tt.want {
				t.Errorf("body %s, want %s", got, tt.want)
			}
		})
	}
}

func TestAPIFor(t *testing.T) {
	for _, e := range []string{"vllm", "sglang"} {
		if api, err := APIFor(e); err != nil || api != e {
			t.Errorf("APIFor(%q) = %q, %v", e, api, err)
		}
	}
	for _, e := range []string{"trtllm", "tgi", "openai", "llamacpp"} {
		_, err := APIFor(e)
		if err == nil || !strings.Contains(err.Error(), "--profiler-config") || !strings.Contains(err.Error(), e) {
			t.Errorf("APIFor(%q): %v, want an error naming the engine and what the server needs", e, err)
		}
	}
}

// recorded answers of the real servers: vLLM answers 200 with an empty
// body (404 when started without a profiler config: the routes do not
// exist); SGLang answers 200 text.
func TestPostAnswers(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		answer     string
		wantErr    string
		wantAnswer string
	}{
		{"vllm ok", 200, "", "", ""},
		{"sglang start", 200, "Start profiling.\n", "", "Start profiling."},
		{"sglang stop", 200, "Stop profiling. This will take some time.\n", "", "Stop profiling. This will take some time."},
		{"vllm without profiler", 404, `{"detail":"Not Found"}`, "no profiler endpoint", `{"detail":"Not Found"}`},
		{"server error", 500, "Internal Server Error\nprofiler already running", "HTTP 500 Internal Server Error profiler already running", "Internal Server Error\nprofiler already running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotBody, gotType string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				gotBody, gotType = string(b), r.Header.Get("Content-Type")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.answer)
			}))
			defer srv.Close()
			body := []byte(`{"activities":["CPU","GPU"]}`)
			n := 0.0
			c, err := post(context.Background(), srv.Client(), srv.URL, "", "/start_profile", body, time.Second, func() float64 { n++; return n })
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if c.Answer != tt.wantAnswer || c.Status != tt.status || c.RequestedS != 1 || c.AcknowledgedS == nil || *c.AcknowledgedS != 2 {
				t.Errorf("call %+v", c)
			}
			if gotBody != string(body) || gotType != "application/json" {
				t.Errorf("server got %q (%s)", gotBody, gotType)
			}
		})
	}
}

func TestPostTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	c, err := post(context.Background(), srv.Client(), srv.URL, "", "/stop_profile", nil, 50*time.Millisecond, func() float64 { return 1 })
	if err == nil || !strings.Contains(err.Error(), "no answer within 50ms") || c.AcknowledgedS != nil || c.Error == "" {
		t.Errorf("call %+v, error %v", c, err)
	}
}
