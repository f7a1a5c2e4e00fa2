package client

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/redact"
	"github.com/servecmp/servecmp/internal/testkit/fakeengine"
)

// doOne sends one request of out tokens to url and returns its record.
func doOne(t *testing.T, url string, r workload.Request, engine string, timeout time.Duration) result.Record {
	t.Helper()
	c := New(Options{BaseURL: url, Conns: 1, RequestTimeout: timeout})
	defer c.Close()
	p, err := Prepare(&r, "m", engine, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	var rec result.Record
	c.Do(context.Background(), NewClock(), &p, &rec, nil)
	return rec
}

func completionReq(out int) workload.Request {
	return workload.Request{ID: "q", PromptTokens: []int{1, 2}, MaxTokens: out, FixedLength: true, InputLen: 2}
}

func chatReq(out int) workload.Request {
	return workload.Request{ID: "c", Messages: []workload.Message{{Role: "user", Content: "hi"}}, MaxTokens: out}
}

func TestClientWire(t *testing.T) {
	for _, tc := range []struct {
		name       string
		f          *fakeengine.Server
		req        workload.Request
		chunks     int
		tokens     []int // expected chunk_tokens (nil: all 1)
		usage      bool
		completion int
		minTTFT    time.Duration
	}{
		{name: "completions", f: &fakeengine.Server{}, req: completionReq(8), chunks: 8, usage: true, completion: 8},
		{name: "chat role chunk not ttft", f: &fakeengine.Server{Delay: 30 * time.Millisecond}, req: chatReq(3), chunks: 3, usage: true, completion: 3, minTTFT: 30 * time.Millisecond},
		{name: "token ids", f: &fakeengine.Server{PerChunk: 3, TokenIDs: true}, req: completionReq(8), chunks: 3, tokens: []int{3, 3, 2}, usage: true, completion: 8},
		{name: "continuous usage", f: &fakeengine.Server{PerChunk: 4, Continuous: true}, req: completionReq(10), chunks: 3, tokens: []int{4, 4, 2}, usage: true, completion: 10},
		{name: "no usage", f: &fakeengine.Server{NoUsage: true}, req: completionReq(5), chunks: 5, usage: false, completion: 5},
		{name: "crlf comments bytewise", f: &fakeengine.Server{CRLF: true, Comments: true, ByteByByte: true}, req: chatReq(4), chunks: 4, usage: true, completion: 4},
		{name: "finish without done", f: &fakeengine.Server{NoDone: true}, req: completionReq(2), chunks: 2, usage: true, completion: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.f.Start(t)
			rec := doOne(t, s.URL, tc.req, "vllm", 0)
			if !rec.OK {
				t.Fatalf("not ok: %s %s", rec.ErrorClass, rec.Error)
			}
			if len(rec.ChunkTimesMs) != tc.chunks || len(rec.ChunkTokens) != tc.chunks {
				t.Fatalf("chunks %d/%d, want %d", len(rec.ChunkTimesMs), len(rec.ChunkTokens), tc.chunks)
			}
			for i, k := range rec.ChunkTokens {
				want := 1
				if tc.tokens != nil {
					want = tc.tokens[i]
				}
				if k != want {
					t.Fatalf("chunk_tokens %v, want %v", rec.ChunkTokens, tc.tokens)
				}
			}
			if rec.UsageReported != tc.usage || rec.CompletionTokens != tc.completion {
				t.Fatalf("usage %v completion %d, want %v %d", rec.UsageReported, rec.CompletionTokens, tc.usage, tc.completion)
			}
			if rec.TTFTMs != rec.ChunkTimesMs[0] || rec.TTFTMs < ms(tc.minTTFT) || rec.E2EMs < rec.TTFTMs || rec.DoneMs < rec.E2EMs {
				t.Fatalf("times ttft %v e2e %v done %v chunks %v", rec.TTFTMs, rec.E2EMs, rec.DoneMs, rec.ChunkTimesMs)
			}
			if rec.LengthMismatch {
				t.Fatal("unexpected length mismatch")
			}
		})
	}
}

func TestClientNoUsagePromptTokens(t *testing.T) {
	// Without usage the input count falls back to the token-id prompt's
	// length, even when the workload line leaves input_len out; a text
	// prompt's length is unknown (0), and the summary counts it.
	s := (&fakeengine.Server{NoUsage: true}).Start(t)
	rec := doOne(t, s.URL, workload.Request{ID: "q", PromptTokens: []int{1, 2, 3}, MaxTokens: 2}, "vllm", 0)
	if !rec.OK || rec.UsageReported || rec.PromptTokens != 3 || rec.CompletionTokens != 2 {
		t.Fatalf("token-id prompt: %+v", rec)
	}
	txt := doOne(t, s.URL, workload.Request{ID: "x", Prompt: "hello there", MaxTokens: 2}, "vllm", 0)
	if !txt.OK || txt.PromptTokens != 0 {
		t.Fatalf("text prompt: %+v", txt)
	}
	sum := result.NewSummary([]result.Record{rec, txt}, 0, true)
	if sum.UsageMissing != 2 || sum.InputTokensUnknown != 1 || sum.InputTokens != 3 {
		t.Fatalf("summary: missing %d unknown %d input %d", sum.UsageMissing, sum.InputTokensUnknown, sum.InputTokens)
	}
}

func TestClientLengthMismatch(t *testing.T) {
	s := (&fakeengine.Server{Produce: 3}).Start(t)
	rec := doOne(t, s.URL, completionReq(5), "vllm", 0)
	if !rec.OK || !rec.LengthMismatch || rec.CompletionTokens != 3 {
		t.Fatalf("%+v", rec)
	}
}

// raw serves a fixed handler body for failure tests.
func raw(t *testing.T, h http.HandlerFunc) string {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

func sse(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, body)
}

func TestClientFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       http.HandlerFunc
		timeout time.Duration
		class   string
		msg     string
	}{
		{"in-band error after 200", func(w http.ResponseWriter, r *http.Request) {
			sse(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"error\":{\"message\":\"KV cache exhausted\",\"code\":500}}\n\ndata: [DONE]\n\n")
		}, 0, result.ClassServerError, "KV cache exhausted"},
		{"string error", func(w http.ResponseWriter, r *http.Request) {
			sse(w, "data: {\"error\":\"Input validation error\"}\n\n")
		}, 0, result.ClassServerError, "Input validation error"},
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			sse(w, "data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":null}]}\n\n")
		}, 0, result.ClassTruncated, "without [DONE]"},
		{"http 400", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"object":"error","message":"max_tokens too large","code":400}`)
		}, 0, "http_400", "max_tokens too large"},
		{"http 503 text", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(503)
			_, _ = io.WriteString(w, "overloaded")
		}, 0, "http_503", "overloaded"},
		{"bad chunk", func(w http.ResponseWriter, r *http.Request) {
			sse(w, "data: {\"choices\":[{\"text\":\n\ndata: [DONE]\n\n")
		}, 0, result.ClassBadResponse, "unparseable"},
		{"garbage", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "<html>hello</html>\n")
		}, 0, result.ClassBadResponse, "not an event stream"},
		{"json not stream", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"choices":[{"text":"abc"}]}`)
		}, 0, result.ClassBadResponse, "application/json"},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			sse(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, 100 * time.Millisecond, result.ClassTimeout, ""},
		{"connection reset", func(w http.ResponseWriter, r *http.Request) {
			conn, buf, _ := w.(http.Hijacker).Hijack()
			_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			_, _ = buf.WriteString(fmt.Sprintf("%x\r\n%s\r\n", 30, "data: {\"choices\":[{\"text\":\"a\""))
			_ = buf.Flush()
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = conn.Close()
		}, 0, result.ClassConnection, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := doOne(t, raw(t, tc.h), completionReq(4), "vllm", tc.timeout)
			if rec.OK || rec.ErrorClass != tc.class || !strings.Contains(rec.Error, tc.msg) {
				t.Fatalf("got ok=%v class %q error %q, want class %q containing %q", rec.OK, rec.ErrorClass, rec.Error, tc.class, tc.msg)
			}
		})
	}
}

func TestClientUnreachable(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c := New(Options{BaseURL: "http://" + addr})
	if _, err := c.Detect(context.Background(), "auto"); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("err = %v", err)
	}
	rec := doOne(t, "http://"+addr, completionReq(2), "vllm", 0)
	if rec.OK || rec.ErrorClass != result.ClassConnection {
		t.Fatalf("%+v", rec)
	}
}

func TestBuildBody(t *testing.T) {
	temp := 0.0
	k := 5
	r := workload.Request{ID: "a", PromptTokens: []int{1}, MaxTokens: 7, FixedLength: true, Sampling: workload.Sampling{Temperature: &temp, TopK: &k}}
	for _, tc := range []struct {
		engine string
		has    []string
		hasNot []string
	}{
		{"vllm", []string{`"ignore_eos":true`, `"min_tokens":7`, `"continuous_usage_stats":true`, `"top_k":5`, `"temperature":0`, `"prompt":[1]`}, nil},
		{"trtllm", []string{`"ignore_eos":true`, `"min_tokens":7`}, nil},
		{"tgi", []string{`"include_usage":true`}, []string{"ignore_eos", "min_tokens", "top_k", "continuous"}},
		{"openai", []string{`"stream":true`}, []string{"ignore_eos", "min_tokens", "top_k"}},
		{"llamacpp", []string{`"ignore_eos":true`, `"max_tokens":7`, `"top_k":5`, `"include_usage":true`}, []string{"min_tokens", "continuous"}},
	} {
		var warns []string
		p, err := Prepare(&r, "m", tc.engine, func(s string) { warns = append(warns, s) })
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range tc.has {
			if !strings.Contains(string(p.Body), s) {
				t.Errorf("%s: body %s lacks %s", tc.engine, p.Body, s)
			}
		}
		for _, s := range tc.hasNot {
			if strings.Contains(string(p.Body), s) {
				t.Errorf("%s: body %s has %s", tc.engine, p.Body, s)
			}
		}
		if len(tc.hasNot) > 0 && len(warns) == 0 && tc.engine != "llamacpp" {
			t.Errorf("%s: no warning for dropped fields", tc.engine)
		}
	}
	if _, err := Prepare(&workload.Request{ID: "x"}, "m", "vllm", func(string) {}); err == nil {
		t.Fatal("empty request accepted")
	}
}

func TestDetect(t *testing.T) {
	s := (&fakeengine.Server{}).Start(t)
	c := New(Options{BaseURL: s.URL})
	info, err := c.Detect(context.Background(), "auto")
	if err != nil || info.Engine != "vllm" || info.Version != "0.0-test" || info.Model != "fake-model" {
		t.Fatalf("%+v %v", info, err)
	}
	sg := raw(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"m","owned_by":"sglang"}]}`)
		case "/server_info":
			fmt.Fprint(w, `{"version":"0.5.1","tp_size":2}`)
		default:
			http.NotFound(w, r)
		}
	})
	info, err = New(Options{BaseURL: sg}).Detect(context.Background(), "auto")
	if err != nil || info.Engine != "sglang" || info.Version != "0.5.1" {
		t.Fatalf("%+v %v", info, err)
	}
	tgi := raw(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"m","owned_by":"m"}]}`)
		case "/info":
			fmt.Fprint(w, `{"model_id":"m","version":"3.0.0"}`)
		default:
			http.NotFound(w, r)
		}
	})
	info, err = New(Options{BaseURL: tgi}).Detect(context.Background(), "auto")
	if err != nil || info.Engine != "tgi" || info.Version != "3.0.0" {
		t.Fatalf("%+v %v", info, err)
	}
	plain := raw(t, http.NotFound)
	info, err = New(Options{BaseURL: plain}).Detect(context.Background(), "auto")
	if err != nil || info.Engine != "openai" {
		t.Fatalf("%+v %v", info, err)
	}
}

func TestClientUsageOnLastContentChunk(t *testing.T) {
	// Usage attached to the last content chunk is a total, not a delta.
	url := raw(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"+
			"data: {\"choices\":[{\"text\":\"b\"}]}\n\n"+
			"data: {\"choices\":[{\"text\":\"c\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":3}}\n\n"+
			"data: [DONE]\n\n")
	})
	rec := doOne(t, url, completionReq(3), "openai", 0)
	if !rec.OK || rec.CompletionTokens != 3 || !rec.UsageReported || fmt.Sprint(rec.ChunkTokens) != "[1 1 1]" || rec.FinishReason != "length" {
		t.Fatalf("%+v", rec)
	}
}

func TestClientNoContent(t *testing.T) {
	url := raw(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		sse(w, "data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	})
	rec := doOne(t, url, completionReq(3), "vllm", 0)
	if !rec.OK || len(rec.ChunkTimesMs) != 0 || rec.TTFTMs != 0 || rec.E2EMs != rec.DoneMs || !rec.LengthMismatch {
		t.Fatalf("%+v", rec)
	}
}

func TestClientScrubsAPIKey(t *testing.T) {
	const key = "sk-echoed-secret"
	url := raw(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		_, _ = io.WriteString(w, `{"error":{"message":"invalid key `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)
	})
	c := New(Options{BaseURL: url, APIKey: key})
	defer c.Close()
	r := completionReq(2)
	p, _ := Prepare(&r, "m", "vllm", func(string) {})
	var rec result.Record
	c.Do(context.Background(), NewClock(), &p, &rec, nil)
	if rec.ErrorClass != "http_401" || strings.Contains(rec.Error, key) || !strings.Contains(rec.Error, redact.Mask) {
		t.Fatalf("%q %q", rec.ErrorClass, rec.Error)
	}
}
