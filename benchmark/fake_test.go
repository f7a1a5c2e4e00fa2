package benchmark

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/workload"
)

// fake is a test streaming server with switchable wire behaviour.
type fake struct {
	perChunk   int           // tokens per content chunk (default 1)
	delay      time.Duration // before each content chunk
	noUsage    bool          // no final usage chunk
	continuous bool          // cumulative usage on every chunk
	tokenIDs   bool          // token_ids on each chunk
	crlf       bool
	comments   bool
	byteByByte bool // write one byte at a time, flushing
	produce    int  // tokens to produce instead of max_tokens (when > 0)
	noDone     bool
	noFinish   bool

	mu     sync.Mutex
	seen   []string // request ids
	auth   []string
	bodies []map[string]any
}

func (f *fake) server(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(f)
	t.Cleanup(s.Close)
	return s
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	n := int(body["max_tokens"].(float64))
	if f.produce > 0 {
		n = f.produce
	}
	chat := strings.HasSuffix(r.URL.Path, "/chat/completions")
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	nl := "\n"
	if f.crlf {
		nl = "\r\n"
	}
	send := func(s string) {
		if f.byteByByte {
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
	if f.comments {
		send(": ping" + nl + nl)
	}
	if chat {
		event(`{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
	}
	per := max(f.perChunk, 1)
	done := 0
	for done < n {
		if f.delay > 0 {
			time.Sleep(f.delay)
		}
		k := min(per, n-done)
		done += k
		fin := "null"
		if done == n && !f.noFinish {
			fin = `"length"`
		}
		text := strings.Repeat("é", k) // two-byte characters, so byte splits land mid-character
		var extra string
		if f.tokenIDs {
			ids := make([]string, k)
			for i := range ids {
				ids[i] = "7"
			}
			extra += `,"token_ids":[` + strings.Join(ids, ",") + `]`
		}
		usage := ""
		if f.continuous {
			usage = fmt.Sprintf(`,"usage":{"prompt_tokens":5,"completion_tokens":%d}`, done)
		}
		if chat {
			event(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s%s}]%s}`, text, fin, extra, usage))
		} else {
			event(fmt.Sprintf(`{"choices":[{"index":0,"text":%q,"finish_reason":%s%s}]%s}`, text, fin, extra, usage))
		}
		if f.comments {
			send(": keep-alive" + nl)
		}
	}
	if !f.noUsage {
		event(fmt.Sprintf(`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":%d,"total_tokens":%d}}`, n, n+5))
	}
	if !f.noDone {
		event("[DONE]")
	}
}

// testWorkload builds n requests of out tokens each.
func testWorkload(n, out int, fixed bool) *workload.Workload {
	w := &workload.Workload{Path: "test.jsonl", SHA256: "abc"}
	for i := range n {
		w.Requests = append(w.Requests, workload.Request{
			ID: fmt.Sprintf("r%03d", i), PromptTokens: []int{1, 2, 3, 4, 5}, MaxTokens: out, FixedLength: fixed, InputLen: 5,
		})
	}
	return w
}
