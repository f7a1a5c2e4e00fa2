package gputelemetry

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// proxyHits counts the requests the proxy of TestMain received.
var proxyHits atomic.Int64

// TestMain points HTTP_PROXY at a recording server before any request is
// made (Go reads the proxy environment once per process), as a user with
// a proxy in the environment would. The other tests scrape loopback
// servers, which Go never sends through a proxy.
func TestMain(m *testing.M) {
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxyHits.Add(1)
		fmt.Fprint(w, pageOf(fakeGPU{idx: 0, uuid: uuidOf("proxy", 0), host: "proxy", vals: map[string]float64{power: 300}}))
	}))
	os.Setenv("HTTP_PROXY", proxy.URL)
	os.Setenv("HTTPS_PROXY", proxy.URL)
	os.Setenv("NO_PROXY", "")
	code := m.Run()
	proxy.Close()
	os.Exit(code)
}

// TestExporterProxyEnvIgnored: with HTTP_PROXY set, a scrape of an
// exporter goes to the host it names (here one that does not resolve) and
// never to the proxy, which would otherwise answer for it; as a control,
// Go's default client does use the proxy.
func TestExporterProxyEnvIgnored(t *testing.T) {
	const u = "http://exporter.invalid:9400/metrics"
	before := proxyHits.Load()
	if resp, err := http.Get(u); err == nil {
		resp.Body.Close()
	}
	if proxyHits.Load() == before {
		t.Skip("control: the default client did not use HTTP_PROXY here")
	}
	s, err := New(Config{Endpoints: []Endpoint{{URL: u}}, Every: 50 * time.Millisecond, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	before = proxyHits.Load()
	runWindow(t, s, 100*time.Millisecond)
	res := s.Result(0, math.Inf(1))
	if n := proxyHits.Load() - before; n != 0 || len(res.GPUs) != 0 || res.Complete {
		t.Fatalf("the proxy got %d scrapes; result %+v", n, res)
	}
}

// hostile is an exporter that answers every scrape with serve.
type hostile struct {
	name  string
	serve http.HandlerFunc
	// check looks at the result of a short window; warnings joined.
	check func(t *testing.T, res string, warnings string)
}

// endless writes line until the client goes away, pausing between lines.
func endless(line string, pause time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			if _, err := w.Write([]byte(line)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			if pause > 0 {
				time.Sleep(pause)
			}
		}
	}
}

// TestHostileExporterHTTP scrapes, over HTTP, exporters that try to
// exhaust servecmp or smuggle something into its output: each ends in a
// warning (the run's other measurements are untouched, the result encodes)
// within the scrape's bounds, and none of their secrets reach the result.
func TestHostileExporterHTTP(t *testing.T) {
	var targetHits atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		targetHits.Add(1)
		fmt.Fprint(w, one(map[string]float64{power: 300}))
	}))
	defer target.Close()
	var counter atomic.Int64
	cases := []hostile{
		{"huge body, no length", endless("# "+strings.Repeat("x", 1<<16)+"\n", 0), func(t *testing.T, _, w string) {
			if !strings.Contains(w, fmt.Sprintf("page over %d bytes", maxPageBytes)) {
				t.Errorf("warnings %q", w)
			}
		}},
		{"endless trickle", endless("# x\n", 10*time.Millisecond), func(t *testing.T, _, w string) {
			if !strings.Contains(w, "scrapes failed") {
				t.Errorf("warnings %q", w)
			}
		}},
		{"millions of series", func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte(strings.Repeat("x 1\n", 2_000_000))) // 8 MB, under the byte bound
		}, func(t *testing.T, _, w string) {
			if !strings.Contains(w, fmt.Sprintf("more than %d series", maxPageSeries)) {
				t.Errorf("warnings %q", w)
			}
		}},
		{"redirect carrying credentials", func(w http.ResponseWriter, r *http.Request) {
			u := strings.Replace(target.URL, "http://", "http://user:pw-hunter2@", 1) + "/metrics"
			http.Redirect(w, r, u, http.StatusTemporaryRedirect)
		}, func(t *testing.T, res, w string) {
			if targetHits.Load() != 0 || !strings.Contains(w, "307") || !strings.Contains(w, "redirects are not followed") ||
				strings.Contains(res, "hunter2") {
				t.Errorf("target asked %d times; warnings %q", targetHits.Load(), w)
			}
		}},
		{"NaN and negative counters", func(w http.ResponseWriter, _ *http.Request) {
			bad := []float64{math.NaN(), -5e6, math.Inf(1), -1}[counter.Add(1)%4]
			fmt.Fprint(w, one(map[string]float64{power: 300, energy: bad}))
		}, func(t *testing.T, res, w string) {
			if !strings.Contains(w, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION values dropped") ||
				!strings.Contains(res, `"source":"power_integral"`) {
				t.Errorf("warnings %q; result %s", w, res)
			}
		}},
		{"secrets in labels", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="sk-proj-abcdefghijklmnopqrstuv",modelName="HF_TOKEN=hf_abcdefghijklmnopqrstuvwx",`+
				`Hostname="--api-key sk-live-0123456789abcdefghij",DCGM_FI_DRIVER_VERSION="ghp_abcdefghijklmnopqrstuvwxyz0123"} 300`+"\n")
		}, func(t *testing.T, res, w string) {
			for _, s := range []string{"sk-proj", "hf_abc", "sk-live", "ghp_abc"} {
				if strings.Contains(res, s) || strings.Contains(w, s) {
					t.Errorf("%s reached the result: %s\n%s", s, res, w)
				}
			}
			if !strings.Contains(res, `"index":"0"`) {
				t.Errorf("the GPU is lost: %s", res)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.serve)
			defer srv.Close()
			s, err := New(Config{Endpoints: []Endpoint{{URL: srv.URL + "/metrics"}}, Every: 50 * time.Millisecond, Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			begin := time.Now()
			ws, we := runWindow(t, s, 200*time.Millisecond)
			if el := time.Since(begin); el > 10*time.Second {
				t.Errorf("the window took %v: the exporter held the scraper", el)
			}
			r := s.Result(ws, we)
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, string(b), strings.Join(r.Warnings, "\n"))
		})
	}
}
