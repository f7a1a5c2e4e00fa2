package servermetrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestScrapePolicy: the default client follows no redirect (the target is
// never reached) and refuses a page over its series bound.
func TestScrapePolicy(t *testing.T) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusFound))
	defer redirect.Close()
	s := NewScraper(redirect.URL+"/metrics", 10*time.Millisecond, nil)
	runUntil(t, s, func() bool { return s.Result(0, 1).ScrapeErrors >= 2 })
	if res := s.Result(0, 1); hits.Load() != 0 || !strings.Contains(strings.Join(res.Warnings, " "), "302 Found") {
		t.Errorf("target hit %d times; warnings %q", hits.Load(), res.Warnings)
	}
	many := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(strings.Repeat("x 1\n", maxSeries+1)))
	}))
	defer many.Close()
	s = NewScraper(many.URL+"/metrics", 10*time.Millisecond, nil)
	runUntil(t, s, func() bool { return s.Result(0, 1).ScrapeErrors >= 1 })
	if res := s.Result(0, 1); !strings.Contains(strings.Join(res.Warnings, " "), "more than 262144 series") {
		t.Errorf("warnings %q", res.Warnings)
	}
}
