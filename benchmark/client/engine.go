package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/redact"
)

// EngineInfo is what detection found about the server.
type EngineInfo struct {
	Engine  string // one of engine.Names
	Version string
	Model   string // first model served (GET /v1/models)
	// Models are the ids of every model GET /v1/models lists, in its
	// order (at most MaxModels, each clipped to maxModelID bytes).
	Models     []string
	Root       string // vLLM's model root (checkpoint path), when given
	DetectedBy string // how Engine was decided, for the manifest
	// Extra is what the engine says about itself beyond its version
	// (llama.cpp's /props: model file, slots, context size), for the
	// manifest's extra fields.
	Extra map[string]string
	// Simulated is set for servecmp serve-sim (servecmp_simulated in its
	// model card), whose token counts of text are words, not a
	// tokenizer's.
	Simulated bool
	// modelsErr says why Model is empty: GET /v1/models failed, or
	// answered an empty list.
	ModelsErr string
}

type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats,omitempty"`
}

// wireRequest is the request body. Only fields that the chosen engine
// accepts are set: trtllm-serve rejects unknown fields outright.
type wireRequest struct {
	Model         string             `json:"model"`
	Prompt        any                `json:"prompt,omitempty"`
	Messages      []workload.Message `json:"messages,omitempty"`
	MaxTokens     int                `json:"max_tokens"`
	MinTokens     int                `json:"min_tokens,omitempty"`
	IgnoreEOS     bool               `json:"ignore_eos,omitempty"`
	Temperature   *float64           `json:"temperature,omitempty"`
	TopP          *float64           `json:"top_p,omitempty"`
	TopK          *int               `json:"top_k,omitempty"`
	Seed          *int64             `json:"seed,omitempty"`
	Stream        bool               `json:"stream"`
	StreamOptions *streamOptions     `json:"stream_options,omitempty"`
}

// Bounds of what GET /v1/models contributes: how many model ids are kept
// and how long each may be in a message.
const (
	MaxModels  = 64
	maxModelID = 256
)

// Endpoint paths.
const (
	pathCompletions = "/v1/completions"
	pathChat        = "/v1/chat/completions"
)

// prepared is a request encoded once, before the run, so that sending it
// costs no encoding.
type Prepared struct {
	Req  *workload.Request
	Path string
	Body []byte
	// capture keeps the answer's text on the record (sessions.go).
	Capture bool
}

// buildBody encodes r for the engine called name. It returns warnings
// (once per kind) via warn when a request asks for something the engine
// cannot do.
func Prepare(r *workload.Request, model, name string, warn func(string)) (Prepared, error) {
	w := wireRequest{
		Model:       model,
		MaxTokens:   r.MaxTokens,
		Temperature: r.Sampling.Temperature,
		TopP:        r.Sampling.TopP,
		Seed:        r.Sampling.Seed,
		Stream:      true,
	}
	d := engine.Dialect(name)
	w.StreamOptions = &streamOptions{IncludeUsage: true, ContinuousUsageStats: d.ContinuousUsage()}
	if r.Sampling.TopK != nil {
		if d.TopK() {
			w.TopK = r.Sampling.TopK
		} else {
			warn(fmt.Sprintf("engine %s: top_k is not sent (not an accepted field)", name))
		}
	}
	if r.FixedLength {
		if d.FixedLength() {
			w.IgnoreEOS = true
			if d.MinTokens() {
				w.MinTokens = r.MaxTokens
			}
		} else {
			warn(fmt.Sprintf("engine %s: fixed-length requests cannot be forced (no ignore_eos); output lengths may differ from the requested ones", name))
		}
	}
	p := Prepared{Req: r}
	switch {
	case len(r.Messages) > 0:
		p.Path = pathChat
		w.Messages = r.Messages
	case len(r.PromptTokens) > 0:
		p.Path = pathCompletions
		w.Prompt = r.PromptTokens
	case r.Prompt != "":
		p.Path = pathCompletions
		w.Prompt = r.Prompt
	default:
		return p, fmt.Errorf("request %q has no prompt, prompt_token_ids or messages", r.ID)
	}
	b, err := json.Marshal(&w)
	if err != nil {
		return p, fmt.Errorf("request %q: %w", r.ID, err)
	}
	p.Body = b
	return p, nil
}

// getJSON fetches path and decodes a JSON body into v.
func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	c.auth(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: %v", path, err)
	}
	return nil
}

// Detect asks the server who it is. engine "auto" decides the engine from
// GET /v1/models (owned_by), then /version, /props, /api/version with
// /api/tags (Ollama), /info or /server_info; any
// other engine name is kept and only the version and model are looked up.
// An unreachable server is an error; anything else unknown is left empty.
func (c *Client) Detect(ctx context.Context, name string) (EngineInfo, error) {
	info := EngineInfo{Engine: name}
	ownedBy, how, err := c.listModels(ctx, &info)
	if err != nil {
		return info, err
	}
	var ver struct {
		Version string `json:"version"`
	}
	if name != engine.Auto {
		how = append(how[:0], "given by --engine")
	} else if e := engineOfOwner(ownedBy); e != "" {
		info.Engine = e
	}
	// Versions: vLLM and trtllm-serve answer /version, SGLang /server_info
	// (older: /get_server_info), TGI /info.
	tryVersion := func(path string) bool {
		ver.Version = ""
		if c.getJSON(ctx, path, &ver) == nil && ver.Version != "" {
			info.Version = ver.Version
			how = append(how, "GET "+path)
			return true
		}
		return false
	}
	for _, p := range engine.Dialect(info.Engine).VersionPaths() {
		if tryVersion(p) {
			break
		}
	}
	if info.Engine == string(engine.LlamaCpp) || info.Engine == engine.Auto {
		if c.llamaProps(ctx, &info) {
			how = append(how, "GET "+engine.PropsPath+" (build_info)")
		}
	}
	if info.Engine == string(engine.Ollama) || info.Engine == engine.Auto {
		if found, ok := c.ollamaInfo(ctx, &info); ok {
			how = append(how, found)
		}
	}
	if info.Engine == engine.Auto {
		var tgi struct {
			ModelID string `json:"model_id"`
			Version string `json:"version"`
			Router  string `json:"router"`
		}
		switch {
		case c.getJSON(ctx, "/info", &tgi) == nil && tgi.ModelID != "" && tgi.Version != "":
			info.Engine, info.Version = string(engine.TGI), tgi.Version
			how = append(how, "GET /info (model_id, version)")
		case tryVersion("/server_info"):
			info.Engine = string(engine.SGLang)
		default:
			info.Engine = string(engine.OpenAI)
			how = append(how, "no engine-specific endpoint answered: plain OpenAI-compatible")
		}
	}
	info.DetectedBy = strings.Join(how, "; ")
	return info, nil
}

// listModels asks GET /v1/models and fills info's models (every id, the
// first one's root) or ModelsErr. It returns the first model's owned_by
// and what it found, for the manifest; an unreachable server is an error.
func (c *Client) listModels(ctx context.Context, info *EngineInfo) (ownedBy string, how []string, err error) {
	var models struct {
		Data []struct {
			ID        string `json:"id"`
			OwnedBy   string `json:"owned_by"`
			Root      string `json:"root"`
			Simulated bool   `json:"servecmp_simulated"`
		} `json:"data"`
	}
	if err := c.getJSON(ctx, "/v1/models", &models); err != nil {
		if isUnreachable(err) {
			return "", nil, fmt.Errorf("engine at %s is unreachable: %s", redact.URL(c.base), redact.Text(err.Error(), c.apiKey))
		}
		info.ModelsErr = "GET /v1/models failed: " + redact.Text(err.Error(), c.apiKey)
		return "", []string{info.ModelsErr}, nil
	}
	if len(models.Data) == 0 {
		info.ModelsErr = "the server lists no model at /v1/models"
		return "", nil, nil
	}
	for _, m := range models.Data[:min(len(models.Data), MaxModels)] {
		info.Models = append(info.Models, redact.Clip(m.ID, maxModelID))
	}
	info.Model, info.Root = models.Data[0].ID, models.Data[0].Root
	ownedBy = models.Data[0].OwnedBy
	info.Simulated = models.Data[0].Simulated
	return ownedBy, []string{"GET /v1/models owned_by=" + ownedBy}, nil
}

// engineOfOwner is the engine that /v1/models owned_by names, or "".
func engineOfOwner(ownedBy string) string {
	switch o := strings.ToLower(ownedBy); {
	case o == string(engine.VLLM), o == string(engine.SGLang), o == string(engine.LlamaCpp):
		return o
	case strings.Contains(o, "tensorrt") || strings.Contains(o, "trtllm") || strings.Contains(o, "nvidia"):
		return string(engine.TRTLLM)
	}
	return ""
}

// ResetPrefixCache empties the server's prefix cache: vLLM POST
// /reset_prefix_cache, SGLang POST /flush_cache, llama.cpp every slot's
// erase (resetLlamaSlots). Other engines have no such endpoint and get an
// error that the caller reports as a warning; so does a reset that could
// be done only in part.
func (c *Client) ResetPrefixCache(ctx context.Context, name string) error {
	if engine.Dialect(name) == engine.LlamaCpp {
		return c.resetLlamaSlots(ctx)
	}
	path := engine.Dialect(name).PrefixCacheReset()
	if path == "" {
		return fmt.Errorf("engine %s has no prefix-cache reset endpoint", name)
	}
	return c.post(ctx, path)
}

// post sends an empty POST to path and reads the answer away; anything
// but 2xx is an error carrying the server's message.
func (c *Client) post(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(nil))
	if err != nil {
		return err
	}
	c.auth(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: HTTP %d: %s", path, resp.StatusCode, c.scrub(errorMessage(b)))
	}
	return nil
}
