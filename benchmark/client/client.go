// Package client is servecmp's one HTTP client for serving engines: it
// detects the engine and model, encodes requests in the engine's dialect
// once (Prepare), sends them as streaming requests over one shared
// keep-alive transport, parses the server-sent events (a fast chunk
// decoder with an encoding/json fallback) and fills one result.Record per
// request. It also empties an engine's prefix cache between steps. The
// load generator (package benchmark) decides when requests are sent.
//
// Units: chunk times and latencies are milliseconds from the request's
// own send (Clock is the step's monotonic time base).
//
// Invariants:
//   - A chunk's timestamp is taken right after the read that delivered it
//     returns, before any parsing; chunks delivered by one read share it.
//   - TTFT is the first chunk with content (non-empty text, delta content,
//     reasoning or tool calls); a role-only chunk, the usage chunk and
//     [DONE] are not content. E2E is the last content chunk; DoneMs is the
//     end of the stream.
//   - A request is ok only when its stream ended with [DONE] or a
//     finish_reason and carried no in-band error; a failure is a record
//     with its class (result.Class*), never an error.
//   - Output tokens come from the server's usage; without usage they are
//     counted from the chunks (token_ids length, else one per content
//     chunk). Every count from the server is bounded where it enters
//     (bounds.go): a request claiming more fails as implausible.
//   - A request is retried only when it provably never reached the
//     server: it failed with a connection error on a reused keep-alive
//     connection before any byte of the response (retry.go). It is sent
//     again once, on a fresh connection, and marked Retried; its
//     latencies still count from the first send.
//   - The API key is sent as a bearer token and scrubbed, with URL
//     credentials, from every text the client keeps. Requests follow the
//     one client policy (internal/httppolicy): no proxy, and a redirect
//     is a failure, never followed with the key.
package client

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

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/httppolicy"
	"github.com/servecmp/servecmp/internal/redact"
)

// MaxErrorLen bounds a record's error text (bytes, after the API key and
// URL credentials were scrubbed from it).
const MaxErrorLen = 300

// maxFinishReason bounds a record's finish_reason (bytes).
const maxFinishReason = 64

// Options configures a Client.
type Options struct {
	BaseURL string
	APIKey  string // sent as a bearer token; never recorded
	// Conns is the number of concurrent streams to size the connection
	// pool for.
	Conns int
	// RequestTimeout bounds one request from send to end of stream; 0 = none.
	RequestTimeout time.Duration
	// OnContentRead, when set, is called after every read that carried
	// content with the time from the read returning to its last chunk
	// being recorded: the client's own added latency. It is called from
	// many goroutines at once. Nil in normal runs.
	OnContentRead func(overhead time.Duration)
}

// Client sends streaming requests over one shared keep-alive transport.
type Client struct {
	base    string
	apiKey  string
	hc      *http.Client
	fresh   *http.Client // no keep-alive: every request on a new connection (retries)
	timeout time.Duration
	bufs    sync.Pool
	onRead  func(time.Duration)
}

// New returns a client whose transport keeps up to o.Conns idle
// connections to the server, so that every stream reuses a connection.
func New(o Options) *Client {
	conns := max(o.Conns, 1)
	// The one client policy (internal/httppolicy): no proxy, no redirect.
	// A compressed stream would be buffered by the decompressor.
	tr := httppolicy.Transport(httppolicy.Options{Conns: conns, NoCompression: true, BufferSize: 32 << 10})
	c := &Client{
		base:    strings.TrimRight(o.BaseURL, "/"),
		apiKey:  o.APIKey,
		hc:      httppolicy.Wrap(tr, 0),
		fresh:   httppolicy.Wrap(freshTransport(tr), 0),
		timeout: o.RequestTimeout,
		onRead:  o.OnContentRead,
	}
	c.bufs.New = func() any { b := make([]byte, 32<<10); return &b }
	return c
}

// freshTransport is tr without keep-alive: each request dials its own
// connection and closes it.
func freshTransport(tr *http.Transport) *http.Transport {
	f := tr.Clone()
	f.DisableKeepAlives = true
	return f
}

// BaseURL is the server's base URL, without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// Redact removes the client's API key, every secret in more and URL
// credentials from s (redact.Text).
func (c *Client) Redact(s string, more ...string) string {
	return redact.Text(s, append(more, c.apiKey)...)
}

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// scrub removes the API key and URL credentials from a message that may
// echo them (a server's error text, a transport error naming the URL) and
// then clips it to MaxErrorLen: scrubbing first, so that a key straddling
// the cut cannot survive minus its tail.
func (c *Client) scrub(msg string) string {
	return redact.Clip(msg, MaxErrorLen, c.apiKey)
}

func (c *Client) auth(r *http.Request) {
	if c.apiKey != "" {
		r.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
}

// clock is the run's monotonic time base: every timestamp is time.Since
// one start instant (time.Time carries a monotonic reading).
type Clock struct{ Start time.Time }

func NewClock() Clock { return Clock{Start: time.Now()} }

func (c Clock) Now() time.Duration { return time.Since(c.Start) }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

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
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens *int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Timings *result.ServerTimings `json:"timings"`
	Error   json.RawMessage       `json:"error"`
	Object  string                `json:"object"`
	Message string                `json:"message"`
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
	rec       *result.Record
	sent      time.Duration
	at        time.Duration // arrival time of the bytes being parsed
	chunk     wireChunk     // scratch for the encoding/json fallback
	info      chunkInfo
	done      bool // [DONE] seen
	finished  bool // a finish_reason seen
	usage     bool
	cumTokens int  // last cumulative completion count seen on a content chunk
	contUsage bool // content chunks carry cumulative usage
	events    int
	capture   *textCapture // the answer's text, when the request asks (sessions.go)
	key       string       // the API key: scrubbed from text before it is clipped
	cap       int          // most output tokens the request may claim (tokenCap)
	chunkSum  int          // output tokens of the content chunks so far
}

var errStop = errors.New("stop")

func (s *stream) event(data []byte) error {
	s.events++
	if string(data) == "[DONE]" {
		s.done = true
		return errStop
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil // an empty data line: a keep-alive, not a chunk
	}
	ci := &s.info
	if err := decodeChunk(data, &s.chunk, ci); err != nil {
		return &requestError{result.ClassBadResponse, fmt.Sprintf("unparseable chunk %q: %v", redact.Clip(string(data), 120, s.key), err)}
	}
	if ci.isError {
		return &requestError{result.ClassServerError, errorMessage(data)}
	}
	content := ci.content
	if ci.finish != "" {
		s.finished = true
		if ci.finish != s.rec.FinishReason {
			// A reason is a word; a server's essay is clipped.
			s.rec.FinishReason = redact.Clip(ci.finish, maxFinishReason, s.key)
		}
	}
	if ci.usage {
		if e := checkUsage(ci.prompt, ci.completion); e != nil {
			return e
		}
		s.usage = true
		s.rec.PromptTokens = ci.prompt
		s.rec.CompletionTokens = ci.completion
		if ci.hasCached {
			n := ci.cached
			s.rec.CachedTokens = &n
		}
	}
	if ci.timings != nil {
		s.rec.ServerTimings = ci.timings
	}
	if !content {
		if ci.choices > 0 && ci.finish == "" && !ci.usage {
			s.rec.EmptyChunks++
		}
		return nil
	}
	if s.capture != nil {
		if e := s.capture.add(data); e != nil {
			return e
		}
	}
	k := 1
	r := s.rec
	switch {
	case ci.usage && (s.contUsage || len(r.ChunkTimesMs) == 0):
		// Cumulative usage on every content chunk (continuous usage
		// stats, established on the first one): the delta is this
		// chunk's tokens, including any held back in preceding empty
		// chunks. Usage that first shows up on a later content chunk is
		// a final total, not a delta.
		s.contUsage = true
		k = ci.completion - s.cumTokens
		s.cumTokens = ci.completion
		if k < 1 {
			k = 1
		}
	case ci.tokenIDs > 0:
		k = ci.tokenIDs
	}
	if s.chunkSum += k; s.chunkSum > s.cap || (ci.usage && ci.completion > s.cap) {
		return checkTokens(max(s.chunkSum, ci.completion), s.cap)
	}
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
	// Unclipped: the record's error is scrubbed, then clipped (scrub).
	return string(bytes.TrimSpace(body))
}

// failureClass turns a transport error into a failure class.
func failureClass(ctx context.Context, err error) *requestError {
	var re *requestError
	switch {
	case errors.As(err, &re):
		return re
	case errors.As(context.Cause(ctx), new(*CancelCause)):
		return &requestError{result.ClassCancelled, context.Cause(ctx).Error()}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return &requestError{result.ClassTimeout, "request timed out"}
	case errors.Is(err, context.Canceled):
		return &requestError{result.ClassCancelled, "cancelled"}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &requestError{result.ClassTimeout, err.Error()}
	}
	return &requestError{result.ClassConnection, err.Error()}
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
type CancelCause struct{ Msg string }

func (c *CancelCause) Error() string { return c.Msg }

// do sends p and streams the response into rec and returns the send time
// (clk.now() just before the request is written; onSend, when non-nil, is
// called right then) and, when p asks to capture it and the request
// succeeded, the answer's text (sessions.go). Chunk timestamps are taken
// right after each read returns, before any parsing.
func (c *Client) Do(ctx context.Context, clk Clock, p *Prepared, rec *result.Record, onSend func()) (sent time.Duration, answer string) {
	startRecord(rec, p)
	var cancel context.CancelFunc
	if c.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	req, err := c.newRequest(ctx, p)
	if err != nil {
		rec.ErrorClass, rec.Error = result.ClassConnection, c.scrub(err.Error())
		return clk.Now(), ""
	}
	sent = clk.Now()
	if onSend != nil {
		onSend()
	}
	s := &stream{rec: rec, sent: sent, key: c.apiKey, cap: tokenCap(p.Req.MaxTokens)}
	if p.Capture {
		s.capture = &textCapture{limit: answerCap(s.cap)}
	}
	e := c.exchange(ctx, cancel, clk, req, p, s)
	if e == nil && s.usage {
		// A final usage count beyond the cap (sent on a chunk without
		// content) fails the request like one on a content chunk.
		e = checkTokens(rec.CompletionTokens, s.cap)
	}
	if e != nil {
		rec.OK = false
		rec.ErrorClass, rec.Error = e.class, c.scrub(e.msg)
		d := ms(clk.Now() - sent)
		rec.E2EMs, rec.DoneMs = d, d
		return sent, ""
	}
	finishRecord(rec, s, p)
	if s.capture != nil {
		answer = s.capture.b.String()
	}
	return sent, answer
}

// startRecord fills what is known of a request before it is sent.
func startRecord(rec *result.Record, p *Prepared) {
	rec.RequestedTokens = p.Req.MaxTokens
	rec.FixedLength = p.Req.FixedLength
	if n := p.Req.MaxTokens; n > 0 {
		rec.ChunkTimesMs = make([]float64, 0, min(n, 4096))
		rec.ChunkTokens = make([]int, 0, min(n, 4096))
	}
}

// newRequest builds the streaming POST of p.
func (c *Client) newRequest(ctx context.Context, p *Prepared) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+p.Path, bytes.NewReader(p.Body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Request-Id", p.Req.ID)
	c.auth(req)
	return req, nil
}

// exchange sends req (the request of p, retried by the retry rule),
// checks the response's status and streams its body into s. It returns
// the request's failure, or nil.
func (c *Client) exchange(ctx context.Context, cancel context.CancelFunc, clk Clock, req *http.Request, p *Prepared, s *stream) *requestError {
	resp, err := c.roundTrip(ctx, req, p, s.rec)
	if err != nil {
		return failureClass(ctx, err)
	}
	defer resp.Body.Close()
	if e := c.statusError(resp); e != nil {
		return e
	}
	var parser sseParser
	if e := c.readStream(ctx, clk, resp.Body, s, &parser); e != nil {
		return e
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
		return &requestError{result.ClassBadResponse, fmt.Sprintf("not an event stream: %q", redact.Clip(parser.firstForeign, 80, c.apiKey))}
	case !s.done && !s.finished:
		return &requestError{result.ClassTruncated, fmt.Sprintf("stream ended after %d events without [DONE] or a finish_reason", s.events)}
	}
	return nil
}

// statusError is the failure an answer's status or content type means:
// anything but 200 with an event stream. It reads at most 4 KiB of the
// body plus the key's length, so that a key echoed across the 4 KiB mark
// is still read whole and scrubbed.
func (c *Client) statusError(resp *http.Response) *requestError {
	limit := int64(4096 + len(c.apiKey))
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, limit))
		return &requestError{"http_" + strconv.Itoa(resp.StatusCode), errorMessage(b)}
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, limit))
		if bytes.Contains(b, []byte(`"error"`)) {
			return &requestError{result.ClassServerError, errorMessage(b)}
		}
		return &requestError{result.ClassBadResponse, "server answered application/json, not an event stream"}
	}
	return nil
}

// readStream is the SSE loop: it reads body until the stream ends,
// timestamping each read before parsing it, and sets the record's end.
func (c *Client) readStream(ctx context.Context, clk Clock, body io.Reader, s *stream, parser *sseParser) *requestError {
	bp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bp)
	buf := *bp
	var perr error
	for {
		n, rerr := body.Read(buf)
		s.at = clk.Now()
		if n > 0 {
			before := len(s.rec.ChunkTimesMs)
			perr = parser.feed(buf[:n], s.event)
			if c.onRead != nil && len(s.rec.ChunkTimesMs) > before {
				c.onRead(clk.Now() - s.at)
			}
			if perr != nil {
				break
			}
		}
		if rerr == io.EOF {
			s.at = clk.Now()
			perr = parser.close(s.event)
			break
		}
		if rerr != nil {
			return failureClass(ctx, rerr)
		}
	}
	s.rec.DoneMs = ms(s.at - s.sent)
	if perr != nil && perr != errStop {
		var re *requestError
		if errors.As(perr, &re) {
			return re
		}
		return &requestError{result.ClassBadResponse, perr.Error()}
	}
	return nil
}

// finishRecord completes a successful request's record: end time and
// token counts, from usage or else from the chunks.
func finishRecord(rec *result.Record, s *stream, p *Prepared) {
	rec.OK = true
	if len(rec.ChunkTimesMs) == 0 {
		rec.E2EMs = rec.DoneMs // no content at all: the request ended with its stream
	}
	rec.UsageReported = s.usage
	if !s.usage {
		n := 0
		for _, k := range rec.ChunkTokens {
			n += k
		}
		rec.CompletionTokens = n
		// The prompt's length is known for token-id prompts only; a text
		// or chat prompt without usage counts 0 (see Summary.InputTokensUnknown).
		rec.PromptTokens = p.Req.InputLen
		if rec.PromptTokens == 0 {
			rec.PromptTokens = len(p.Req.PromptTokens)
		}
	}
	if rec.FixedLength && rec.CompletionTokens != rec.RequestedTokens {
		rec.LengthMismatch = true
	}
}

// textCapture collects a streamed answer's text (completions "text" or
// chat "delta.content"), for the next turn's history and client-side
// token counts, up to limit bytes (answerCap).
type textCapture struct {
	b     strings.Builder
	limit int
}

// add appends one content chunk's text; chunks it cannot read add
// nothing. An answer past the capture's limit fails the request as
// implausible, as a token count past its cap does.
func (t *textCapture) add(data []byte) *requestError {
	var c struct {
		Choices []struct {
			Text  string `json:"text"`
			Delta struct {
				Content string `json:"content"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &c) != nil || len(c.Choices) == 0 {
		return nil
	}
	if t.b.Len()+len(c.Choices[0].Text)+len(c.Choices[0].Delta.Content) > t.limit {
		return &requestError{result.ClassImplausible, fmt.Sprintf("the answer's text runs over %d bytes, more than the %d output tokens this request allows could hold", t.limit, t.limit/MaxBytesPerToken)}
	}
	t.b.WriteString(c.Choices[0].Text)
	t.b.WriteString(c.Choices[0].Delta.Content)
	return nil
}
