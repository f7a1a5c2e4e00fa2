package promscrape

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

func TestPolicy(t *testing.T) {
	c := NewClient(0)
	tr, ok := c.Transport.(*http.Transport)
	if !ok || tr.Proxy != nil || c.Timeout != 5*time.Second {
		t.Fatalf("client %+v", c)
	}
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusMovedPermanently))
	defer redirect.Close()
	if _, status, err := Get(context.Background(), c, redirect.URL, 1<<10); err == nil || status != 301 || hits.Load() != 0 {
		t.Errorf("redirect: status %d, err %v, target hit %d times", status, err, hits.Load())
	}
}

func TestGetBounds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/exact":
			w.Write([]byte(strings.Repeat("a", 100)))
		case "/over":
			w.Write([]byte(strings.Repeat("a", 101)))
		case "/over-chunked":
			for range 101 {
				w.Write([]byte("a"))
				w.(http.Flusher).Flush()
			}
		case "/slow":
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		default:
			http.Error(w, "no", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	c := NewClient(200 * time.Millisecond)
	ctx := context.Background()
	if b, _, err := Get(ctx, c, srv.URL+"/exact", 100); err != nil || len(b) != 100 {
		t.Errorf("exact: %d bytes, %v", len(b), err)
	}
	if _, _, err := Get(ctx, c, srv.URL+"/over", 100); err == nil || !strings.Contains(err.Error(), "page over 100 bytes") {
		t.Errorf("over: %v", err)
	}
	if _, _, err := Get(ctx, c, srv.URL+"/over-chunked", 100); err == nil || !strings.Contains(err.Error(), "page over 100 bytes") {
		t.Errorf("over, chunked: %v", err)
	}
	if _, status, err := Get(ctx, c, srv.URL+"/down", 100); err == nil || status != 503 {
		t.Errorf("503: %d %v", status, err)
	}
	start := time.Now()
	if _, _, err := Get(ctx, c, srv.URL+"/slow", 100); err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("slow: %v after %v", err, time.Since(start))
	}
	u := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1) + "/down"
	if _, _, err := Get(ctx, c, u, 100); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("credentials: %v", err)
	}
	if _, _, err := Get(ctx, c, "http://user:hunter2@127.0.0.1:1/x", 100); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("credentials in a dial error: %v", err)
	}
}

func TestFamilies(t *testing.T) {
	page := "# HELP a x\n# TYPE a gauge\n\na{l=\"1\"} 1\n  a{l=\"2\"} 2\n# TYPE c counter\nc 3\nu 4\n"
	if err := CheckSeries([]byte(page), 4); err != nil {
		t.Errorf("4 series refused: %v", err)
	}
	if err := CheckSeries([]byte(page), 3); err == nil {
		t.Error("4 series passed a bound of 3")
	}
	fams, err := Families([]byte(page), 10)
	if err != nil || len(fams) != 3 {
		t.Fatalf("%v %v", fams, err)
	}
	for name, want := range map[string]float64{"c": 3, "u": 4} {
		mf := fams[name]
		if v, ok := Value(mf.GetType(), mf.GetMetric()[0]); !ok || v != want {
			t.Errorf("%s = %v %v", name, v, ok)
		}
	}
	nan, _ := Families([]byte("n NaN\ni +Inf\n"), 10)
	for _, name := range []string{"n", "i"} {
		if _, ok := Value(nan[name].GetType(), nan[name].GetMetric()[0]); ok {
			t.Errorf("%s accepted", name)
		}
	}
	if _, ok := Value(dto.MetricType_HISTOGRAM, &dto.Metric{}); ok {
		t.Error("histogram accepted")
	}
	if _, err := Families([]byte("a{ 1\n"), 10); err == nil {
		t.Error("garbage accepted")
	}
}
