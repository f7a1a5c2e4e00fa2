package benchmark

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

// TestDetectionFailuresHaveTheirOwnMessages: a hanging server (detection
// timeout), an interrupt during detection, a failing /v1/models and an
// empty model list each say what happened; only the last says that the
// server lists no model.
func TestDetectionFailuresHaveTheirOwnMessages(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	for _, tc := range []struct {
		name      string
		h         http.HandlerFunc
		interrupt bool
		want      string
	}{
		{"timeout", hang, false, "engine detection at http://127.0.0.1"},
		{"interrupt", hang, true, "interrupted during engine detection"},
		{"models fail", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, false, "GET /v1/models failed: GET /v1/models: HTTP 500"},
		{"no model", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/models" {
				fmt.Fprint(w, `{"data":[]}`)
				return
			}
			http.NotFound(w, r)
		}, false, "the server lists no model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := raw(t, tc.h)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.interrupt {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			cfg := Config{URL: url, Workload: fakeengine.Workload(2, 2, false), Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: 1},
				detectTimeout: 300 * time.Millisecond}
			_, err := Run(ctx, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.name != "no model" && strings.Contains(err.Error(), "lists no model") {
				t.Fatalf("%v blames the model list", err)
			}
			var ie *InterruptedError
			if errors.As(err, &ie) != tc.interrupt {
				t.Fatalf("%T: interrupted %v", err, tc.interrupt)
			}
		})
	}
}
