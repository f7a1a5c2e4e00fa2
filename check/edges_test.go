package check

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/workload"
)

const secretKey = "sk-Q7fz9XwL2mRt8VbN4kPe"

// TestKeyAtEveryOffset: an engine echoes the API key at every offset of
// its error text, across the 200-byte clip; no 5-byte piece of the key
// reaches the report.
func TestKeyAtEveryOffset(t *testing.T) {
	var pad atomic.Int64
	var auth atomic.Value
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		http.Error(w, strings.Repeat("x", int(pad.Load()))+secretKey+" was refused", 401)
	}))
	defer s.Close()
	c := &engineClient{t: Target{URL: s.URL, Model: "m"}, opt: Options{Timeout: time.Second, Client: &http.Client{}, APIKey: secretKey}, style: "openai"}
	req := &workload.Request{ID: "r", PromptTokens: []int{1}, MaxTokens: 2}
	for off := range 260 {
		pad.Store(int64(off))
		out := c.ask(context.Background(), req)
		if out.OK || !strings.HasPrefix(out.Error, "HTTP 401") {
			t.Fatalf("offset %d: %+v", off, out)
		}
		for i := 0; i+5 <= len(secretKey); i++ {
			if strings.Contains(out.Error, secretKey[i:i+5]) {
				t.Fatalf("offset %d: the key leaks into %q", off, out.Error)
			}
		}
	}
	if auth.Load() != "Bearer "+secretKey {
		t.Fatalf("Authorization %q", auth.Load())
	}
}

// TestInterruptedCheckIsIncomplete: an interrupt during a request does not
// turn into an engine failure; the report is marked incomplete.
func TestInterruptedCheckIsIncomplete(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int64
	engine := fakeEngine(t, "ids", -1)
	defer engine.Close()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && n.Add(1) == 3 { // the second request's first engine hangs (detection GETs aside)
			_, _ = io.Copy(io.Discard, r.Body) // then the server sees the client go
			cancel()
			<-r.Context().Done()
			return
		}
		engine.Config.Handler.ServeHTTP(w, r)
	}))
	defer s.Close()
	rep, err := Run(ctx, Target{URL: "http://user:pw@" + strings.TrimPrefix(s.URL, "http://"), Model: "m", Engine: "openai"},
		Target{URL: s.URL, Model: "m", Engine: "openai"}, wl(), Options{})
	if err == nil || rep == nil || !rep.Incomplete || rep.Summary.Passed {
		t.Fatalf("err %v, report %+v", err, rep)
	}
	if len(rep.Requests) != 1 || rep.Summary.Failed != 0 {
		t.Fatalf("%d requests compared, %d failed: the interrupted one counted", len(rep.Requests), rep.Summary.Failed)
	}
	if strings.Contains(rep.A.URL, "pw") || strings.Contains(rep.A.URL, "user") {
		t.Fatalf("URL %s", rep.A.URL)
	}
}
