package benchmark

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
)

// closer is a streaming server with llama.cpp's connection habit: it
// answers keep-alive but does not keep the connection. mode:
//   - "after": every response is written by hand on the hijacked
//     connection, which is closed right after it (the client learns of it
//     only when it next uses the connection, or races it);
//   - "dead": the second request on a connection is read and the
//     connection closed without an answer (the race lost, every time);
//   - "mid": the connection is closed in the middle of the response;
//   - "first": the connection is closed before any answer, on the first
//     request of a fresh connection.
type closer struct {
	mode    string
	hits    atomic.Int64 // requests read by a handler
	mu      sync.Mutex
	perConn map[net.Conn]int
}

type connKey struct{}

func (c *closer) server(t *testing.T) *httptest.Server {
	t.Helper()
	c.perConn = map[net.Conn]int{}
	s := httptest.NewUnstartedServer(c)
	s.Config.ConnContext = func(ctx context.Context, conn net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, conn)
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// closerEvents is a two-token completion stream with usage.
const closerEvents = "data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":null}]}\n\n" +
	"data: {\"choices\":[{\"text\":\"b\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n" +
	"data: [DONE]\n\n"

func (c *closer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" {
		fmt.Fprint(w, `{"data":[{"id":"m","owned_by":"llamacpp"}]}`)
		return
	}
	if r.URL.Path != "/v1/completions" {
		http.NotFound(w, r)
		return
	}
	c.hits.Add(1)
	conn := r.Context().Value(connKey{}).(net.Conn)
	c.mu.Lock()
	c.perConn[conn]++
	nth := c.perConn[conn]
	c.mu.Unlock()
	hj, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	defer hj.Close()
	if c.mode == "first" || (c.mode == "dead" && nth > 1) {
		c.hits.Add(-1) // never answered: the request did not count
		return
	}
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\nTransfer-Encoding: chunked\r\n\r\n"
	body := closerEvents
	if c.mode == "mid" {
		body = body[:40]
	}
	_, _ = buf.WriteString(head + fmt.Sprintf("%x\r\n%s\r\n", len(body), body))
	if c.mode != "mid" {
		_, _ = buf.WriteString("0\r\n\r\n")
	}
	_ = buf.Flush()
	if c.mode == "dead" && nth == 1 {
		// Keep the connection: wait for the next request on it, which
		// the next handler call cannot get (the connection is hijacked),
		// so read and drop it here.
		if _, err := http.ReadRequest(bufio.NewReader(hj)); err == nil {
			return
		}
	}
}

func closerRun(t *testing.T, c *closer, n, conc int) (*result.Result, []result.Record) {
	t.Helper()
	s := c.server(t)
	var mu sync.Mutex
	var recs []result.Record
	w := &workload.Workload{Path: "t.jsonl"}
	for i := range n {
		w.Requests = append(w.Requests, workload.Request{ID: fmt.Sprintf("r%d", i), PromptTokens: []int{1, 2, 3, 4, 5}, MaxTokens: 2})
	}
	res, err := Run(context.Background(), Config{
		URL: s.URL, Engine: "llamacpp", Model: "m", Workload: w, Load: result.LoadPolicy{Mode: result.ModeConcurrency, Concurrency: conc},
		OnRecord: func(r *result.Record) error { mu.Lock(); recs = append(recs, *r); mu.Unlock(); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, recs
}

func TestRetryClosedAfterResponse(t *testing.T) {
	for _, mode := range []string{"after", "dead"} {
		t.Run(mode, func(t *testing.T) {
			c := &closer{mode: mode}
			res, recs := closerRun(t, c, 60, 4)
			s := res.Summary
			if s.RequestsOK != 60 || s.RequestsFailed != 0 || len(recs) != 60 {
				t.Fatalf("ok %d failed %d %v: no request may be lost to connection reuse", s.RequestsOK, s.RequestsFailed, s.FailedByClass)
			}
			if c.hits.Load() != 60 {
				t.Errorf("server answered %d requests, want 60", c.hits.Load())
			}
			n := 0
			for _, r := range recs {
				if r.Retried {
					n++
					if r.RetryReason == "" {
						t.Errorf("%s: retried without a reason", r.ID)
					}
				}
			}
			if n != s.Retried {
				t.Errorf("summary retried %d, records %d", s.Retried, n)
			}
			// "dead" loses the race on every reused connection. A retry
			// leaves no connection in the pool (it is not kept), so each
			// loop alternates: a new connection that is kept, then a dead
			// reuse and its retry.
			if mode == "dead" && s.Retried < 25 {
				t.Errorf("retried %d, want about half the requests", s.Retried)
			}
			// The summary states the retries (the text's "retried" row);
			// they are how the server handles connections, not a warning.
			if strings.Contains(strings.Join(res.Warnings, "\n"), "fresh connection") {
				t.Errorf("a retry warning in %q", res.Warnings)
			}
		})
	}
}

func TestRetryNotAfterResponseBytes(t *testing.T) {
	for _, tc := range []struct {
		mode, class string
	}{
		{"mid", result.ClassConnection}, // closed mid-response: the server saw it
		{"first", result.ClassConnection},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			c := &closer{mode: tc.mode}
			s := c.server(t)
			for i := range 3 {
				rec := doOne(t, s.URL, workload.Request{ID: "q", PromptTokens: []int{1, 2}, MaxTokens: 2, FixedLength: true, InputLen: 2}, "llamacpp")
				if rec.OK || rec.Retried || rec.ErrorClass != tc.class {
					t.Fatalf("request %d: ok %v retried %v class %q (%s), want a %s failure, not retried", i, rec.OK, rec.Retried, rec.ErrorClass, rec.Error, tc.class)
				}
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			total := 0
			for _, k := range c.perConn {
				total += k
			}
			if total != 3 {
				t.Errorf("server got %d sends for 3 requests: a failure was retried", total)
			}
		})
	}
}
