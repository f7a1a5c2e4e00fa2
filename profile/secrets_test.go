package profile

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servecmp/servecmp/internal/httppolicy"
)

// TestPostAnswerScrubbed is the case: the profiler's start and
// stop answers are stored in the result, so a server that echoes the API
// key, a key of a known shape or URL credentials has them masked in the
// stored answer and in the error, before the answer is clipped.
func TestPostAnswerScrubbed(t *testing.T) {
	const key = "sk-profiler-test-0123456789abcdef"
	for _, status := range []int{200, 500} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			io.WriteString(w, "started; auth "+r.Header.Get("Authorization")+"; HF_TOKEN=hf_abcdefghijklmnopqrstuvwx; "+
				"traces at http://user:pw-hunter2@store/x; "+strings.Repeat("x", 600))
		}))
		c, err := post(context.Background(), httppolicy.Client(httppolicy.Options{}), srv.URL, key, "/start_profile", nil, time.Second, func() float64 { return 0 })
		srv.Close()
		got := c.Answer + " " + c.Error
		if err != nil {
			got += " " + err.Error()
		}
		for _, secret := range []string{key, "hf_abc", "pw-hunter2"} {
			if strings.Contains(got, secret) {
				t.Errorf("%d: %q reached the call: %q", status, secret, got)
			}
		}
		if !strings.Contains(c.Answer, "started") || len(c.Answer) > maxAnswer+len("…") {
			t.Errorf("%d: answer %q", status, c.Answer)
		}
	}
}

// TestPostRedirectRefused: a profiler endpoint that redirects is an
// error naming the redirect, and the target never gets the call nor the
// key it carries.
func TestPostRedirectRefused(t *testing.T) {
	var hits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.RedirectHandler(other.URL+"/start_profile", http.StatusTemporaryRedirect))
	defer srv.Close()
	_, err := post(context.Background(), httppolicy.Client(httppolicy.Options{}), srv.URL, "sk-profiler-test-0123456789abcdef", "/start_profile", nil, time.Second, func() float64 { return 0 })
	if err == nil || !strings.Contains(err.Error(), "redirect") || hits.Load() != 0 {
		t.Fatalf("error %v; target asked %d times", err, hits.Load())
	}
}
