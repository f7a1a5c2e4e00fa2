package client

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/servecmp/servecmp/benchmark/result"
)

func parseAll(chunks ...[]byte) (events []string, foreign int) {
	var p sseParser
	emit := func(b []byte) error { events = append(events, string(b)); return nil }
	for _, c := range chunks {
		_ = p.feed(c, emit)
	}
	_ = p.close(emit)
	return events, p.foreign
}

func TestSSE(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    []string
		foreign int
	}{
		{"lf", "data: a\n\ndata: b\n\n", []string{"a", "b"}, 0},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}, 0},
		{"comments", ": ping\n\ndata: a\n: mid\n\n:x\n", []string{"a"}, 0},
		{"no space", "data:a\n\n", []string{"a"}, 0},
		{"multiline", "data: a\ndata: b\n\n", []string{"a\nb"}, 0},
		{"fields ignored", "event: x\nid: 3\nretry: 10\ndata: a\n\n", []string{"a"}, 0},
		{"eof without blank", "data: a\n\ndata: [DONE]", []string{"a", "[DONE]"}, 0},
		{"garbage", "hello world\n{\"x\":1}\n", nil, 2},
		{"utf8", "data: {\"text\":\"é€\"}\n\n", []string{`{"text":"é€"}`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, foreign := parseAll([]byte(tc.in))
			if !slices.Equal(got, tc.want) || foreign != tc.foreign {
				t.Fatalf("got %q foreign %d, want %q foreign %d", got, foreign, tc.want, tc.foreign)
			}
			// Every split point, and byte by byte, gives the same events.
			for i := range len(tc.in) {
				if g, _ := parseAll([]byte(tc.in[:i]), []byte(tc.in[i:])); !slices.Equal(g, tc.want) {
					t.Fatalf("split at %d: got %q", i, g)
				}
			}
			var bytesIn [][]byte
			for i := range len(tc.in) {
				bytesIn = append(bytesIn, []byte{tc.in[i]})
			}
			if g, _ := parseAll(bytesIn...); !slices.Equal(g, tc.want) {
				t.Fatalf("byte by byte: got %q", g)
			}
		})
	}
}

func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n",
		"data: a\r\n\r\n: c\r\ndata: é\n\n",
		"event: x\ndata:\ndata:\n\n",
		"\n\n\r\n:\n",
	} {
		f.Add([]byte(s), uint(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, at uint) {
		whole, fw := parseAll(in)
		i := int(at % uint(len(in)+1))
		split, fs := parseAll(bytes.Clone(in[:i]), bytes.Clone(in[i:]))
		if !slices.Equal(whole, split) || fw != fs {
			t.Fatalf("split at %d: %q vs %q", i, whole, split)
		}
		// Events go through the chunk decoder too: it must never panic.
		rec := &result.Record{}
		s := &stream{rec: rec}
		for _, e := range whole {
			_ = s.event([]byte(e))
		}
	})
}

func TestSSEBoundsEventSize(t *testing.T) {
	// A body without line ends, or an event of endless data lines, is an
	// error once it passes the bound, not an ever-growing buffer.
	piece := bytes.Repeat([]byte("a"), 1<<20)
	var p sseParser
	var err error
	for i := 0; i < 20 && err == nil; i++ {
		err = p.feed(piece, func([]byte) error { return nil })
	}
	if !errors.Is(err, errEventTooLarge) || len(p.partial) > maxEventBytes {
		t.Fatalf("unterminated line: err %v, buffered %d", err, len(p.partial))
	}
	var q sseParser
	line := append(append([]byte("data: "), piece...), '\n')
	err = nil
	for i := 0; i < 20 && err == nil; i++ {
		err = q.feed(line, func([]byte) error { return nil })
	}
	if !errors.Is(err, errEventTooLarge) || len(q.data) > maxEventBytes {
		t.Fatalf("endless event: err %v, buffered %d", err, len(q.data))
	}
	// The client turns it into a per-request failure.
	url := raw(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 20 {
			if _, err := w.Write(piece); err != nil {
				return
			}
		}
	})
	if rec := doOne(t, url, completionReq(3), "vllm", 0); rec.OK || rec.ErrorClass != result.ClassBadResponse {
		t.Fatalf("record %+v", rec.ErrorClass)
	}
}
