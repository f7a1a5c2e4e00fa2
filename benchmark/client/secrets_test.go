package client

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
)

// secretKey is the API key the hostile server echoes; every window of
// leakWindow of its bytes is looked for in what the client keeps.
const (
	secretKey  = "sk-Q7fz9XwL2mRt8VbN4kPe"
	leakWindow = 5
)

// leaks reports whether s holds any leakWindow-byte piece of the key.
func leaks(s string) bool {
	for i := 0; i+leakWindow <= len(secretKey); i++ {
		if strings.Contains(s, secretKey[i:i+leakWindow]) {
			return true
		}
	}
	return false
}

// TestKeyAtEveryOffset places the API key at every offset of every field
// of a server's answer that the client clips before keeping it (the error
// text of a non-200 answer, a JSON answer, an unparseable chunk, an
// in-band error, a non-SSE line, the record's error) and checks that no
// piece of it reaches the record: the key is scrubbed before any cut.
func TestKeyAtEveryOffset(t *testing.T) {
	fields := []struct {
		name string
		max  int // offsets tried: 0..max
		body func(pad string) (status int, ctype, body string)
	}{
		{"http error text", 4200, func(p string) (int, string, string) { return 500, "text/plain", p + secretKey + " tail" }},
		{"http error json", 400, func(p string) (int, string, string) {
			return 400, "application/json", `{"error":{"message":"` + p + secretKey + `"}}`
		}},
		{"json answer", 4200, func(p string) (int, string, string) {
			return 200, "application/json", `{"error":"` + p + secretKey + `"}`
		}},
		{"unparseable chunk", 200, func(p string) (int, string, string) {
			return 200, "text/event-stream", "data: {" + p + secretKey + "\n\n"
		}},
		{"in-band error", 400, func(p string) (int, string, string) {
			return 200, "text/event-stream", `data: {"error":{"message":"` + p + secretKey + `"}}` + "\n\n"
		}},
		{"foreign line", 150, func(p string) (int, string, string) { return 200, "text/event-stream", p + secretKey + "\n" }},
	}
	for _, f := range fields {
		t.Run(f.name, func(t *testing.T) {
			var pad string
			url := raw(t, func(w http.ResponseWriter, r *http.Request) {
				status, ct, body := f.body(pad)
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(status)
				_, _ = w.Write([]byte(body))
			})
			c := New(Options{BaseURL: url, APIKey: secretKey, Conns: 1})
			defer c.Close()
			r := completionReq(2)
			p, _ := Prepare(&r, "m", "vllm", func(string) {})
			for off := 0; off <= f.max; off++ {
				pad = strings.Repeat("x", off)
				var rec result.Record
				c.Do(context.Background(), NewClock(), &p, &rec, nil)
				if rec.OK || rec.Error == "" {
					t.Fatalf("offset %d: the request did not fail: %+v", off, rec)
				}
				if leaks(rec.Error) {
					t.Fatalf("offset %d: the key leaks into %q", off, rec.Error)
				}
				if len(rec.Error) > MaxErrorLen+len("…") {
					t.Fatalf("offset %d: error of %d bytes", off, len(rec.Error))
				}
			}
		})
	}
}
