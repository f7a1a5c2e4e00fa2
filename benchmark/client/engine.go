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
	// Models are the ids GET /v1/models listed, in its order (at most
	// MaxModels, each clipped), for messages that name what is served.
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
// GET /v1/models (owned_by), then /version, /server_info or /info; any
// other engine name is kept and only the version and model are looked up.
// An unreachable server is an error; anything else unknown is left empty.
func (c *Client) Detect(ctx context.Context, name string) (EngineInfo, error) {
	info := EngineInfo{Engine: name}
	var models struct {
		Data []struct {
			ID        string `json:"id"`
			OwnedBy   string `json:"owned_by"`
			Root      string `json:"root"`
			Simulated bool   `json:"servecmp_simulated"`
		} `json:"data"`
	}
	var how []string
	ownedBy := ""
	if err := c.getJSON(ctx, "/v1/models", &models); err != nil {
		if isUnreachable(err) {
			return info, fmt.Errorf("engine at %s is unreachable: %s", redact.URL(c.base), redact.Text(err.Error(), c.apiKey))
		}
		info.ModelsErr = "GET /v1/models failed: " + redact.Text(err.Error(), c.apiKey)
		how = append(how, info.ModelsErr)
	} else if len(models.Data) == 0 {
		info.ModelsErr = "the server lists no model at /v1/models"
	} else {
		info.Model = models.Data[0].ID
		info.Root = models.Data[0].Root
		for _, m := range models.Data[:min(len(models.Data), MaxModels)] {
			info.Models = append(info.Models, clipName(m.ID))
		}
		ownedBy = models.Data[0].OwnedBy
		info.Simulated = models.Data[0].Simulated
		how = append(how, "GET /v1/models owned_by="+ownedBy)
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
