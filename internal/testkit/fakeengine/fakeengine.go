// Package fakeengine is a test kit: an OpenAI-compatible streaming server
// whose wire behaviour tests switch field by field (chunking, usage,
// token ids, CRLF, comments, byte-by-byte writes, a missing [DONE] or
// finish_reason), and the small workloads tests send it. Tests of the
// HTTP client and of the load generator share it.
package fakeengine

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/workload"
)

// Server is a test streaming server with switchable wire behaviour. It
// answers /v1/models (model fake-model, owned by vllm), /version and
// /reset_prefix_cache, and streams every other POST.
type Server struct {
	PerChunk   int           // tokens per content chunk (default 1)
	Delay      time.Duration // before each content chunk
	NoUsage    bool          // no final usage chunk
	Continuous bool          // cumulative usage on every chunk
	TokenIDs   bool          // token_ids on each chunk
	CRLF       bool
	Comments   bool
	ByteByByte bool // write one byte at a time, flushing
	Produce    int  // tokens to produce instead of max_tokens (when > 0)
	NoDone     bool
	NoFinish   bool

	mu     sync.Mutex
	seen   []string // request ids
	auth   []string
	bodies []map[string]any
}

// Start serves f until the test ends.
func (f *Server) Start(t testing.TB) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(f)
	t.Cleanup(s.Close)
	return s
}

// ServeHTTP answers one request.
func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"fake-model","owned_by":"vllm","root":"/ckpt/fake"}]}`)
		return
	}
	if r.URL.Path == "/version" {
		fmt.Fprint(w, `{"version":"0.0-test"}`)
		return
	}
	if r.URL.Path == "/reset_prefix_cache" {
		return
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	f.mu.Lock()
	f.seen = append(f.seen, r.Header.Get("X-Request-Id"))
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	f.stream(w, r, body)
}

// stream writes the answer to one request with the given body.
func (f *Server) stream(w http.ResponseWriter, r *http.Request, body map[string]any) {
	n := int(body["max_tokens"].(float64))
	if f.Produce > 0 {
		n = f.Produce
	}
	chat := strings.HasSuffix(r.URL.Path, "/chat/completions")
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	nl := "\n"
	if f.CRLF {
		nl = "\r\n"
	}
	send := func(s string) {
		if f.ByteByByte {
			for i := 0; i < len(s); i++ {
				_, _ = w.Write([]byte{s[i]})
				fl.Flush()
			}
			return
		}
		_, _ = io.WriteString(w, s)
		fl.Flush()
	}
	event := func(payload string) { send("data: " + payload + nl + nl) }
	if f.Comments {
		send(": ping" + nl + nl)
	}
	if chat {
		event(`{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
	}
	per := max(f.PerChunk, 1)
	done := 0
	for done < n {
		if f.Delay > 0 {
			time.Sleep(f.Delay)
		}
		k := min(per, n-done)
		done += k
		fin := "null"
		if done == n && !f.NoFinish {
			fin = `"length"`
		}
		text := strings.Repeat("é", k) // two-byte characters, so byte splits land mid-character
		var extra string
		if f.TokenIDs {
			ids := make([]string, k)
			for i := range ids {
				ids[i] = "7"
			}
			extra += `,"token_ids":[` + strings.Join(ids, ",") + `]`
		}
		usage := ""
		if f.Continuous {
			usage = fmt.Sprintf(`,"usage":{"prompt_tokens":5,"completion_tokens":%d}`, done)
		}
		if chat {
			event(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s%s}]%s}`, text, fin, extra, usage))
		} else {
			event(fmt.Sprintf(`{"choices":[{"index":0,"text":%q,"finish_reason":%s%s}]%s}`, text, fin, extra, usage))
		}
		if f.Comments {
			send(": keep-alive" + nl)
		}
	}
	if !f.NoUsage {
		event(fmt.Sprintf(`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":%d,"total_tokens":%d}}`, n, n+5))
	}
	if !f.NoDone {
		event("[DONE]")
	}
}

// Workload builds n token-id requests of out tokens each.
func Workload(n, out int, fixed bool) *workload.Workload {
	w := &workload.Workload{Path: "test.jsonl", SHA256: "abc"}
	for i := range n {
		w.Requests = append(w.Requests, workload.Request{
			ID: fmt.Sprintf("r%03d", i), PromptTokens: []int{1, 2, 3, 4, 5}, MaxTokens: out, FixedLength: fixed, InputLen: 5,
		})
	}
	return w
}

// Seen returns the X-Request-Id of every streamed request, in arrival
// order.
func (f *Server) Seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seen)
}

// Auth returns the Authorization header of every streamed request.
func (f *Server) Auth() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.auth)
}

// Bodies returns the decoded body of every streamed request.
func (f *Server) Bodies() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.bodies)
}
