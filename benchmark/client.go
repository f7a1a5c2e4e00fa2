package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Error classes of failed requests.
const (
	ClassServerError = "server_error"     // in-band {"error": …} in the stream
	ClassTruncated   = "truncated_stream" // ended without [DONE] or a finish_reason
	ClassTimeout     = "timeout"
	ClassConnection  = "connection"
	ClassBadResponse = "bad_response"
	ClassCancelled   = "cancelled" // stopped by the drain rule or an interrupt
	// HTTP errors are "http_<status>", e.g. "http_400".
)

// ClientOptions configures a Client.
type ClientOptions struct {
	BaseURL string
	APIKey  string // sent as a bearer token; never recorded
	// Conns is the number of concurrent streams to size the connection
	// pool for.
	Conns int
	// RequestTimeout bounds one request from send to end of stream; 0 = none.
	RequestTimeout time.Duration
}

// Client sends streaming requests over one shared keep-alive transport.
type Client struct {
	base    string
	apiKey  string
	hc      *http.Client
	timeout time.Duration
	bufs    sync.Pool
}

// NewClient returns a client whose transport keeps up to o.Conns idle
// connections to the server, so that every stream reuses a connection.
func NewClient(o ClientOptions) *Client {
	conns := max(o.Conns, 1)
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns + 16,
		MaxIdleConnsPerHost: conns + 16,
		IdleConnTimeout:     90 * time.Second,
		// A compressed stream would be buffered by the decompressor.
		DisableCompression: true,
		ReadBufferSize:     32 << 10,
		WriteBufferSize:    32 << 10,
	}
	c := &Client{
		base:    strings.TrimRight(o.BaseURL, "/"),
		apiKey:  o.APIKey,
		hc:      &http.Client{Transport: tr},
		timeout: o.RequestTimeout,
	}
	c.bufs.New = func() any { b := make([]byte, 32<<10); return &b }
	return c
}

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// HTTPClient returns the shared client, for scraping server metrics.
func (c *Client) HTTPClient() *http.Client { return c.hc }

func (c *Client) auth(r *http.Request) {
	if c.apiKey != "" {
		r.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
}

// clock is the run's monotonic time base: every timestamp is time.Since
// one start instant (time.Time carries a monotonic reading).
type clock struct{ start time.Time }

func newClock() clock                    { return clock{start: time.Now()} }
func (c clock) now() time.Duration       { return time.Since(c.start) }
func ms(d time.Duration) float64         { return float64(d) / 1e6 }
func seconds(d time.Duration) float64    { return d.Seconds() }
func durMs(f float64) time.Duration      { return time.Duration(f * 1e6) }
func durSeconds(f float64) time.Duration { return time.Duration(f * 1e9) }

// wireChunk is the part of a streamed chunk the client reads. Content
// fields stay raw: only their emptiness matters, so no string is decoded.
type wireChunk struct {
	Choices []struct {
		Text  json.RawMessage `json:"text"`
		Delta struct {
			Content          json.RawMessage `json:"content"`
			ReasoningContent json.RawMessage `json:"reasoning_content"`
			Reasoning        json.RawMessage `json:"reasoning"`
			ToolCalls        json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
		TokenIDs     []int   `json:"token_ids"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
}

// nonEmpty reports whether a raw JSON value carries content: not absent,
// null, "" or [].
func nonEmpty(raw json.RawMessage) bool {
	switch string(raw) {
	case "", "null", `""`, "[]", "{}":
		return false
	}
	return true
}

// requestError is a classified failure.
type requestError struct {
	class, msg string
}

func (e *requestError) Error() string { return e.class + ": " + e.msg }

// stream is the per-request parse state.
type stream struct {
	rec       *Record
	sent      time.Duration
	at        time.Duration // arrival time of the bytes being parsed
	chunk     wireChunk
	done      bool // [DONE] seen
	finished  bool // a finish_reason seen
	usage     bool
	cumTokens int // last cumulative completion count seen on a content chunk
	events    int
}

var errStop = errors.New("stop")

func (s *stream) event(data []byte) error {
	s.events++
	if string(data) == "[DONE]" {
		s.done = true
		return errStop
	}
	c := &s.chunk
	*c = wireChunk{}
	if err := json.Unmarshal(data, c); err != nil {
		return &requestError{ClassBadResponse, fmt.Sprintf("unparseable chunk %q: %v", clip(data, 120), err)}
	}
	if nonEmpty(c.Error) || c.Object == "error" {
		return &requestError{ClassServerError, errorMessage(data)}
	}
	content := false
	var tokenIDs int
	if len(c.Choices) > 0 {
		ch := &c.Choices[0]
		content = nonEmpty(ch.Text) || nonEmpty(ch.Delta.Content) || nonEmpty(ch.Delta.ReasoningContent) ||
			nonEmpty(ch.Delta.Reasoning) || nonEmpty(ch.Delta.ToolCalls)
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finished = true
			s.rec.FinishReason = *ch.FinishReason
		}
		tokenIDs = len(ch.TokenIDs)
	}
	if c.Usage != nil {
		s.usage = true
		s.rec.PromptTokens = c.Usage.PromptTokens
		s.rec.CompletionTokens = c.Usage.CompletionTokens
	}
	if !content {
		return nil
	}
	k := 1
	switch {
	case c.Usage != nil && len(c.Choices) > 0:
		// Cumulative usage on a content chunk (continuous_usage_stats):
		// the delta is this chunk's tokens, including any held back in
		// preceding empty chunks.
		k = c.Usage.CompletionTokens - s.cumTokens
		s.cumTokens = c.Usage.CompletionTokens
		if k < 1 {
			k = 1
		}
	case tokenIDs > 0:
		k = tokenIDs
	}
	r := s.rec
	t := ms(s.at - s.sent)
	if len(r.ChunkTimesMs) == 0 {
		r.TTFTMs = t
	}
	r.ChunkTimesMs = append(r.ChunkTimesMs, t)
	r.ChunkTokens = append(r.ChunkTokens, k)
	r.E2EMs = t
	return nil
}

// errorMessage pulls a readable message out of an error payload.
func errorMessage(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &e) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			return s
		case e.Message != "":
			return e.Message
		case e.Detail != nil:
			return fmt.Sprint(e.Detail)
		}
	}
	return string(clip(bytes.TrimSpace(body), 200))
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// classify turns a transport error into a class.
func classify(ctx context.Context, err error) *requestError {
	var re *requestError
	switch {
	case errors.As(err, &re):
		return re
	case errors.As(context.Cause(ctx), new(*cancelCause)):
		return &requestError{ClassCancelled, context.Cause(ctx).Error()}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return &requestError{ClassTimeout, "request timed out"}
	case errors.Is(err, context.Canceled):
		return &requestError{ClassCancelled, "cancelled"}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &requestError{ClassTimeout, err.Error()}
	}
	return &requestError{ClassConnection, err.Error()}
}

// isUnreachable reports whether err means no connection could be made.
func isUnreachable(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.Is(err, syscall.ECONNREFUSED)
}

// cancelCause is the cause given to in-flight requests that the run
// cancels (drain rule, drain timeout, interrupt).
type cancelCause struct{ msg string }

func (c *cancelCause) Error() string { return c.msg }

// do sends p and streams the response into rec and returns the send time
// (clk.now() just before the request is written; onSend, when non-nil, is
// called right then). Chunk timestamps are
// taken right after each read returns, before any parsing.
func (c *Client) do(ctx context.Context, clk clock, p *prepared, rec *Record, onSend func()) (sent time.Duration) {
	rec.RequestedTokens = p.req.MaxTokens
	rec.FixedLength = p.req.FixedLength
	if n := p.req.MaxTokens; n > 0 {
		rec.ChunkTimesMs = make([]float64, 0, min(n, 4096))
		rec.ChunkTokens = make([]int, 0, min(n, 4096))
	}
	var cancel context.CancelFunc
	if c.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+p.path, bytes.NewReader(p.body))
	if err != nil {
		rec.ErrorClass, rec.Error = ClassConnection, err.Error()
		return clk.now()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Request-Id", p.req.ID)
	c.auth(req)
	sent = clk.now()
	if onSend != nil {
		onSend()
	}
	fail := func(e *requestError) {
		rec.OK = false
		rec.ErrorClass, rec.Error = e.class, e.msg
		d := ms(clk.now() - sent)
		rec.E2EMs, rec.DoneMs = d, d
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		fail(classify(ctx, err))
		return sent
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		fail(&requestError{"http_" + strconv.Itoa(resp.StatusCode), errorMessage(b)})
		return sent
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if bytes.Contains(b, []byte(`"error"`)) {
			fail(&requestError{ClassServerError, errorMessage(b)})
		} else {
			fail(&requestError{ClassBadResponse, "server answered application/json, not an event stream"})
		}
		return sent
	}
	s := stream{rec: rec, sent: sent}
	var parser sseParser
	bp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bp)
	buf := *bp
	var perr error
	for {
		n, rerr := resp.Body.Read(buf)
		s.at = clk.now()
		if n > 0 {
			perr = parser.feed(buf[:n], s.event)
			if perr != nil {
				break
			}
		}
		if rerr == io.EOF {
			s.at = clk.now()
			perr = parser.close(s.event)
			break
		}
		if rerr != nil {
			fail(classify(ctx, rerr))
			return sent
		}
	}
	rec.DoneMs = ms(s.at - sent)
	if perr != nil && perr != errStop {
		var re *requestError
		if errors.As(perr, &re) {
			fail(re)
		} else {
			fail(&requestError{ClassBadResponse, perr.Error()})
		}
		return sent
	}
	if s.done {
		// Read the rest (normally only the chunked-encoding trailer) so
		// that the connection goes back to the pool, but never wait on a
		// server that keeps the stream open after [DONE].
		t := time.AfterFunc(time.Second, cancel)
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		t.Stop()
	}
	switch {
	case !s.done && !s.finished && s.events == 0 && parser.foreign > 0:
		fail(&requestError{ClassBadResponse, fmt.Sprintf("not an event stream: %q", parser.firstForeign)})
		return sent
	case !s.done && !s.finished:
		fail(&requestError{ClassTruncated, fmt.Sprintf("stream ended after %d events without [DONE] or a finish_reason", s.events)})
		return sent
	}
	rec.OK = true
	rec.UsageReported = s.usage
	if !s.usage {
		n := 0
		for _, k := range rec.ChunkTokens {
			n += k
		}
		rec.CompletionTokens = n
		rec.PromptTokens = p.req.InputLen
	}
	if rec.FixedLength && rec.CompletionTokens != rec.RequestedTokens {
		rec.LengthMismatch = true
	}
	return sent
}
