package servesim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is the simulated engine; it implements http.Handler. Close stops
// its scheduler.
type Server struct {
	cfg       Config
	st        stats
	sc        *scheduler
	words     *words
	mux       *http.ServeMux
	start     sync.Once
	started   atomic.Bool
	closeOnce sync.Once
	nextID    atomic.Uint64
	created   int64
	modelJSON []byte // the model name as a JSON string
}

// New returns a server for cfg; zero fields take their defaults. Callers
// taking cfg from user input should check it with Config.Validate first.
// The scheduler goroutine starts with the first request.
func New(cfg Config) *Server {
	cfg.fill()
	s := &Server{cfg: cfg, words: newWords(cfg.Vocab), created: time.Now().Unix()}
	s.modelJSON, _ = json.Marshal(cfg.ModelName)
	s.sc = newScheduler(&s.cfg, &s.st)
	m := http.NewServeMux()
	m.HandleFunc("POST /v1/completions", s.handleCompletions)
	m.HandleFunc("POST /v1/chat/completions", s.handleChat)
	m.HandleFunc("GET /v1/models", s.handleModels)
	m.HandleFunc("GET /version", s.handleVersion)
	m.HandleFunc("GET /metrics", s.handleMetrics)
	m.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	m.HandleFunc("POST /reset_prefix_cache", s.handleResetPrefixCache)
	m.HandleFunc("POST /flush_cache", s.handleResetPrefixCache)
	s.sc.prof = s.serveProfiler(m)
	s.sc.onRunning = s.serveGPUs(m)
	s.mux = m
	return s
}

// Config returns the configuration in effect, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if k := s.cfg.APIKey; k != "" && strings.HasPrefix(r.URL.Path, "/v1/") && r.Header.Get("Authorization") != "Bearer "+k {
		http.Error(w, `{"error": "Unauthorized"}`, http.StatusUnauthorized)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close stops the scheduler; streams in flight end with finish_reason
// "abort". It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.start.Do(func() {}) // never start after Close
		close(s.sc.stop)
		if s.started.Load() {
			<-s.sc.stopped
		}
	})
}

// ensureStarted starts the scheduler on first use; false once closed.
func (s *Server) ensureStarted() bool {
	s.start.Do(func() {
		s.started.Store(true)
		go s.sc.run()
	})
	return s.started.Load()
}

// submit queues a sequence, starting the scheduler on first use.
func (s *Server) submit(ctx context.Context, q *seq) error {
	if !s.ensureStarted() {
		return errors.New("server closed")
	}
	select {
	case s.sc.arrivals <- q:
		return nil
	case <-s.sc.stopped:
		return errors.New("server closed")
	case <-s.sc.stop:
		return errors.New("server closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// apiError writes an OpenAI-style error body.
func apiError(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"object": "error", "message": msg, "type": typ, "param": nil, "code": code})
	w.Write(b)
}

func badRequest(w http.ResponseWriter, msg string) {
	apiError(w, http.StatusBadRequest, "BadRequestError", msg)
}

// request is the union of the completion and chat request fields the
// simulator understands. In strict mode any other field is rejected.
type request struct {
	Model               string          `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            []chatMessage   `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           int             `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage         bool `json:"include_usage"`
		ContinuousUsageStats bool `json:"continuous_usage_stats"`
	} `json:"stream_options"`
	Temperature    *float64        `json:"temperature"`
	TopP           *float64        `json:"top_p"`
	TopK           *int            `json:"top_k"`
	Seed           *int64          `json:"seed"`
	N              *int            `json:"n"`
	Logprobs       json.RawMessage `json:"logprobs"` // int (completions) or bool (chat)
	TopLogprobs    int             `json:"top_logprobs"`
	ReturnTokenIDs bool            `json:"return_token_ids"`
	Stop           json.RawMessage `json:"stop"`
	User           string          `json:"user"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentText flattens a message content: a string, or an array of parts
// whose "text" fields are joined.
func (m chatMessage) contentText() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) == nil {
		var b bytes.Buffer
		for i, p := range parts {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

const maxBody = 64 << 20

func (s *Server) decode(w http.ResponseWriter, r *http.Request) (*request, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		badRequest(w, "reading body: "+err.Error())
		return nil, false
	}
	if len(body) > maxBody {
		apiError(w, http.StatusRequestEntityTooLarge, "BadRequestError", "request body too large")
		return nil, false
	}
	var req request
	dec := json.NewDecoder(bytes.NewReader(body))
	if s.cfg.Strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&req); err != nil {
		badRequest(w, "invalid request body: "+err.Error())
		return nil, false
	}
	if req.Model != "" && req.Model != s.cfg.ModelName {
		apiError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return nil, false
	}
	if req.N != nil && *req.N != 1 {
		badRequest(w, "only n=1 is supported")
		return nil, false
	}
	if req.StreamOptions != nil && !req.Stream && s.cfg.Strict {
		badRequest(w, "stream_options can only be set when stream is true")
		return nil, false
	}
	return &req, true
}

// job is a validated request ready to run.
type job struct {
	chat      bool
	req       *request
	prompt    []int
	maxTokens int
	logprobs  int // top candidates per token; 0: none
	wantLP    bool
	key       uint64
}

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	req, ok := s.decode(w, r)
	if !ok {
		return
	}
	j := &job{req: req}
	p := bytes.TrimSpace(req.Prompt)
	switch {
	case len(p) == 0 || bytes.Equal(p, []byte("null")):
		badRequest(w, "prompt is required")
		return
	case p[0] == '"':
		var text string
		if err := json.Unmarshal(p, &text); err != nil {
			badRequest(w, "invalid prompt: "+err.Error())
			return
		}
		j.prompt = textTokens(text, s.cfg.Vocab)
	case p[0] == '[':
		var ids []int
		if err := json.Unmarshal(p, &ids); err != nil {
			badRequest(w, "prompt must be a string or one list of token ids (batched prompts are not supported)")
			return
		}
		for _, id := range ids {
			if id < 0 {
				badRequest(w, "token ids must be >= 0")
				return
			}
		}
		j.prompt = ids
	default:
		badRequest(w, "prompt must be a string or a list of token ids")
		return
	}
	if len(req.Logprobs) > 0 && !bytes.Equal(req.Logprobs, []byte("null")) {
		var n int
		if err := json.Unmarshal(req.Logprobs, &n); err != nil || n < 0 || n > 20 {
			badRequest(w, "logprobs must be an integer in [0, 20]")
			return
		}
		j.wantLP, j.logprobs = true, n
	}
	s.serve(w, r, j)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	req, ok := s.decode(w, r)
	if !ok {
		return
	}
	if len(req.Messages) == 0 {
		badRequest(w, "messages is required")
		return
	}
	for i, m := range req.Messages {
		if m.Role == "" {
			badRequest(w, fmt.Sprintf("messages[%d].role is required", i))
			return
		}
	}
	j := &job{chat: true, req: req, prompt: chatTokens(req.Messages, s.cfg.Vocab)}
	if len(req.Logprobs) > 0 && !bytes.Equal(req.Logprobs, []byte("null")) {
		var on bool
		if err := json.Unmarshal(req.Logprobs, &on); err != nil {
			badRequest(w, "logprobs must be a boolean")
			return
		}
		if req.TopLogprobs < 0 || req.TopLogprobs > 20 {
			badRequest(w, "top_logprobs must be in [0, 20]")
			return
		}
		j.wantLP, j.logprobs = on, req.TopLogprobs
	}
	s.serve(w, r, j)
}

// serve validates lengths, applies pre-stream faults, runs the sequence
// and writes the response.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, j *job) {
	req := j.req
	switch {
	case req.MaxCompletionTokens != nil:
		j.maxTokens = *req.MaxCompletionTokens
	case req.MaxTokens != nil:
		j.maxTokens = *req.MaxTokens
	default:
		j.maxTokens = 16
	}
	if j.maxTokens <= 0 {
		badRequest(w, "max_tokens must be at least 1")
		return
	}
	if req.MinTokens < 0 || req.MinTokens > j.maxTokens {
		badRequest(w, "min_tokens must be in [0, max_tokens]")
		return
	}
	if len(j.prompt) == 0 {
		badRequest(w, "prompt is empty")
		return
	}
	total := len(j.prompt) + j.maxTokens
	if s.cfg.MaxModelLen > 0 && total > s.cfg.MaxModelLen {
		badRequest(w, fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion).",
			s.cfg.MaxModelLen, total, len(j.prompt), j.maxTokens))
		return
	}
	if total > s.cfg.KVCacheTokens {
		badRequest(w, fmt.Sprintf("prompt + max_tokens (%d) exceeds the KV cache (%d tokens)", total, s.cfg.KVCacheTokens))
		return
	}
	key := mix(uint64(s.cfg.Seed)) ^ hashTokens(j.prompt)
	if req.Temperature != nil && *req.Temperature > 0 && req.Seed != nil {
		key = mix(key ^ uint64(*req.Seed))
	}
	if j.chat {
		key = mix(key ^ 0xc4a7)
	}
	j.key = key
	if decide(key, saltError, s.cfg.ErrorRate) {
		apiError(w, http.StatusInternalServerError, "InternalServerError", "simulated engine error")
		return
	}
	q := newSeq(key, j.prompt, j.maxTokens, req.MinTokens, req.IgnoreEOS)
	if err := s.submit(r.Context(), q); err != nil {
		apiError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", err.Error())
		return
	}
	defer q.aborted.Store(true) // frees the slot if the handler leaves early
	id := s.nextID.Add(1)
	if rid := r.Header.Get("X-Request-Id"); rid != "" {
		w.Header().Set("X-Request-Id", rid)
	}
	if req.Stream {
		s.stream(w, r, j, q, id)
		return
	}
	s.whole(w, r, j, q, id)
}

// faultPos is where a mid-stream fault strikes: a token index in
// [0, maxTokens).
func faultPos(key uint64, maxTokens int) int {
	return int(mix(key^mix(saltWhere)) % uint64(maxTokens))
}

// whole waits for the full output and writes one JSON response.
func (s *Server) whole(w http.ResponseWriter, r *http.Request, j *job, q *seq, id uint64) {
	var ids []int
	var finish string
	for {
		var done bool
		ids, done, finish = q.take(ids)
		if done {
			break
		}
		select {
		case <-q.notify:
		case <-r.Context().Done():
			return
		}
	}
	if finish == "abort" {
		apiError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "server shutting down")
		return
	}
	if decide(j.key, saltMidErr, s.cfg.MidStreamErrorRate) {
		apiError(w, http.StatusInternalServerError, "InternalServerError", "simulated engine error during generation")
		return
	}
	var text bytes.Buffer
	for _, t := range ids {
		text.WriteString(s.words.word(t))
	}
	choice := map[string]any{"index": 0, "finish_reason": finish}
	if j.chat {
		choice["message"] = map[string]any{"role": "assistant", "content": text.String()}
	} else {
		choice["text"] = text.String()
	}
	if j.req.ReturnTokenIDs {
		choice["token_ids"] = ids
	}
	if j.wantLP {
		choice["logprobs"] = s.logprobsObject(j, ids, 0)
	} else {
		choice["logprobs"] = nil
	}
	obj := "text_completion"
	prefix := "cmpl-"
	if j.chat {
		obj, prefix = "chat.completion", "chatcmpl-"
	}
	resp := map[string]any{
		"id": prefix + strconv.FormatUint(id, 10), "object": obj, "created": time.Now().Unix(),
		"model":   s.cfg.ModelName,
		"choices": []any{choice},
		"usage":   usage(len(j.prompt), len(ids)),
	}
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(resp)
	w.Write(b)
}

func usage(prompt, completion int) map[string]int {
	return map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
}

// logprobsObject builds the logprobs for tokens ids starting at output
// position pos0, in the completions or chat shape.
func (s *Server) logprobsObject(j *job, ids []int, pos0 int) any {
	k := max(j.logprobs, 1)
	if j.chat {
		content := make([]any, len(ids))
		for i, t := range ids {
			pos := pos0 + i
			tok := s.words.word(t)
			var top []any
			for rank := 0; rank < j.logprobs; rank++ {
				tt := s.words.word(candidate(j.key, pos, rank, t, s.cfg.Vocab))
				top = append(top, map[string]any{"token": tt, "logprob": fakeLogprob(j.key, pos, rank), "bytes": []byte(tt)})
			}
			if top == nil {
				top = []any{}
			}
			content[i] = map[string]any{"token": tok, "logprob": fakeLogprob(j.key, pos, 0), "bytes": []byte(tok), "top_logprobs": top}
		}
		return map[string]any{"content": content}
	}
	tokens := make([]string, len(ids))
	lps := make([]float64, len(ids))
	tops := make([]map[string]float64, len(ids))
	for i, t := range ids {
		pos := pos0 + i
		tokens[i] = s.words.word(t)
		lps[i] = fakeLogprob(j.key, pos, 0)
		tops[i] = map[string]float64{}
		for rank := 0; rank < k && j.logprobs > 0; rank++ {
			tops[i][s.words.word(candidate(j.key, pos, rank, t, s.cfg.Vocab))] = fakeLogprob(j.key, pos, rank)
		}
	}
	return map[string]any{"tokens": tokens, "token_logprobs": lps, "top_logprobs": tops, "text_offset": []int{}}
}

// candidate is the rank-th most likely token at pos: the emitted token
// first, then deterministic alternatives.
func candidate(key uint64, pos, rank, emitted, vocab int) int {
	if rank == 0 {
		return emitted
	}
	return tokenAt(key^mix(uint64(rank)), pos, vocab)
}

// sseStream is one streamed response's state.
type sseStream struct {
	s                    *Server
	w                    http.ResponseWriter
	r                    *http.Request
	rc                   *http.ResponseController
	enc                  *chunkEncoder
	buf                  []byte
	group                []int // tokens of the chunk being built
	sent                 int   // tokens written
	faultAt              int
	midErr, stall, reset bool
	continuous           bool
}

// Error events of a stream.
const (
	abortEvent  = "data: {\"error\": {\"object\": \"error\", \"message\": \"server shutting down\", \"type\": \"ServiceUnavailableError\", \"code\": 503}}\n\ndata: [DONE]\n\n"
	midErrEvent = "data: {\"error\": {\"object\": \"error\", \"message\": \"simulated engine error during generation\", \"type\": \"InternalServerError\", \"code\": 500}}\n\ndata: [DONE]\n\n"
)

// stream writes the SSE response.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, j *job, q *seq, id uint64) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	cfg := &s.cfg
	st := &sseStream{
		s: s, w: w, r: r, rc: http.NewResponseController(w), enc: s.newChunkEncoder(j, id), buf: make([]byte, 0, 4096),
		faultAt: faultPos(j.key, j.maxTokens), midErr: decide(j.key, saltMidErr, cfg.MidStreamErrorRate),
		stall: decide(j.key, saltStall, cfg.StallRate), reset: decide(j.key, saltReset, cfg.ResetRate),
		continuous: j.req.StreamOptions != nil && j.req.StreamOptions.ContinuousUsageStats,
	}
	includeUsage := j.req.StreamOptions != nil && j.req.StreamOptions.IncludeUsage
	if j.chat {
		st.buf = st.enc.roleChunk(st.buf)
	}
	var ids []int
	for {
		var done bool
		var finish string
		ids, done, finish = q.take(ids[:0])
		if finish == "abort" {
			st.end(abortEvent)
			return
		}
		if !st.tokens(ids, done, finish) {
			return
		}
		if done {
			if includeUsage {
				st.buf = st.enc.usageChunk(st.buf, st.sent)
			}
			st.end("data: [DONE]\n\n")
			return
		}
		if !st.flush() {
			return
		}
		select {
		case <-q.notify:
		case <-r.Context().Done():
			return
		}
	}
}

// tokens adds ids to the stream, in chunks of TokensPerChunk, and injects
// the request's fault at its position. It reports false when the stream
// is over.
func (st *sseStream) tokens(ids []int, done bool, finish string) bool {
	for i, t := range ids {
		if st.sent+len(st.group) == st.faultAt && (st.midErr || st.reset || st.stall) {
			st.chunk("")
			if !st.fault() {
				return false
			}
		}
		st.group = append(st.group, t)
		last := done && i == len(ids)-1
		if len(st.group) >= st.s.cfg.TokensPerChunk || last {
			fin := ""
			if last {
				fin = finish
			}
			st.chunk(fin)
		}
	}
	return true
}

// chunk encodes the pending group of tokens, if any.
func (st *sseStream) chunk(finish string) {
	if len(st.group) == 0 {
		return
	}
	st.buf = st.enc.tokenChunk(st.buf, st.group, st.sent, finish, st.continuous)
	st.sent += len(st.group)
	st.group = st.group[:0]
}

// fault injects the stream's fault: an in-band error, a connection reset
// or a stall. It reports false when the stream is over.
func (st *sseStream) fault() bool {
	switch {
	case st.midErr:
		st.end(midErrEvent)
		return false
	case st.reset:
		st.w.Write(st.buf)
		st.rc.Flush()
		st.s.resetConn(st.w)
		return false
	}
	st.w.Write(st.buf)
	st.rc.Flush()
	st.buf = st.buf[:0]
	select {
	case <-time.After(st.s.cfg.StallFor):
		return true
	case <-st.r.Context().Done():
		return false
	}
}

// flush writes what is buffered; false when the client is gone.
func (st *sseStream) flush() bool {
	if len(st.buf) == 0 {
		return true
	}
	if _, err := st.w.Write(st.buf); err != nil {
		return false
	}
	if st.rc.Flush() != nil {
		return false
	}
	st.buf = st.buf[:0]
	return true
}

// end writes what is buffered followed by the final events.
func (st *sseStream) end(final string) {
	st.buf = append(st.buf, final...)
	st.w.Write(st.buf)
	st.rc.Flush()
}

// resetConn closes the client connection without ending the response.
func (s *Server) resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2 or a wrapped writer: abort the stream
	}
	if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
		tc.SetLinger(0) // send RST rather than FIN
	}
	conn.Close()
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	maxLen := s.cfg.MaxModelLen
	if maxLen == 0 {
		maxLen = s.cfg.KVCacheTokens
	}
	writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{
		"id": s.cfg.ModelName, "object": "model", "created": s.created, "owned_by": s.cfg.EngineName,
		"root": s.cfg.ModelName, "parent": nil, "max_model_len": maxLen,
		// Says that token counts of text are words, not a tokenizer's:
		// benchmark --tokenizer then does not compare them.
		"servecmp_simulated": true,
	}}})
}

func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"version": s.cfg.Version})
}

func (s *Server) handleResetPrefixCache(w http.ResponseWriter, r *http.Request) {
	if !s.ensureStarted() {
		apiError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "server closed")
		return
	}
	done := make(chan struct{})
	select {
	case s.sc.resetPC <- done:
		<-done
		w.WriteHeader(http.StatusOK)
	case <-s.sc.stop:
		apiError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "server closed")
	case <-r.Context().Done():
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(v)
	w.Write(b)
}
