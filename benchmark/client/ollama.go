package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/internal/redact"
)

// maxOllamaValue bounds every value taken from Ollama's own API into the
// manifest (bytes); a longer one is clipped.
const maxOllamaValue = 128

// ollamaModelKeys are the manifest extra fields that describe one served
// model (ollamaModelInfo fills them).
var ollamaModelKeys = []string{
	"ollama_digest", "ollama_template", "ollama_template_sha256", "ollama_num_ctx", "ollama_repeat_penalty",
	"model_file_sha256", "model_format", "model_family", "parameter_size", "quantization_level",
}

// ollamaTags is GET /api/tags: the models served.
type ollamaTags struct {
	Models []struct {
		Name    string `json:"name"`
		Model   string `json:"model"`
		Digest  string `json:"digest"`
		Details struct {
			Format            string `json:"format"`
			Family            string `json:"family"`
			ParameterSize     string `json:"parameter_size"`
			QuantizationLevel string `json:"quantization_level"`
		} `json:"details"`
	} `json:"models"`
}

// ollamaShow is the part of POST /api/show that servecmp records.
type ollamaShow struct {
	Template   string `json:"template"`
	Parameters string `json:"parameters"`
	Details    struct {
		ParentModel string `json:"parent_model"`
	} `json:"details"`
}

// ollamaInfo asks GET /api/version and GET /api/tags and, when both answer
// as Ollama does (a version; a list of models, possibly empty), fills
// info's engine (when auto), version and the extra fields of info.Model.
// It reports whether it did, and how, for the manifest. A version
// already found (the dialect's VersionPaths, when the engine was given)
// is not asked again.
func (c *Client) ollamaInfo(ctx context.Context, info *EngineInfo) (string, bool) {
	version, how := info.Version, "GET "+engine.OllamaTagsPath+" (Ollama)"
	if version == "" {
		var v struct {
			Version string `json:"version"`
		}
		if c.getJSON(ctx, engine.OllamaVersionPath, &v) != nil || v.Version == "" {
			return "", false
		}
		version, how = v.Version, "GET "+engine.OllamaVersionPath+", "+engine.OllamaTagsPath+" (Ollama)"
	}
	var tags struct {
		Models *json.RawMessage `json:"models"`
	}
	if c.getJSON(ctx, engine.OllamaTagsPath, &tags) != nil || tags.Models == nil {
		return "", false
	}
	if info.Engine == engine.Auto {
		info.Engine = string(engine.Ollama)
	}
	info.Version = redact.Clip(version, maxOllamaValue)
	if info.Model != "" {
		c.ollamaModelInfo(ctx, info, info.Model)
	}
	return how, true
}

// ModelInfo makes info's extra fields describe model, the model the run
// sends, when detection described another (the first one listed): on
// Ollama they name one model of several.
func (c *Client) ModelInfo(ctx context.Context, info *EngineInfo, model string) {
	if info.Engine == string(engine.Ollama) && model != info.Model {
		c.ollamaModelInfo(ctx, info, model)
	}
}

// ollamaModelInfo replaces the extra fields that describe a model with
// those of model: from GET /api/tags its manifest digest, format,
// family, size and quantization; from POST /api/show whether its template
// passes a completions prompt through ("raw") or wraps it, the
// template's SHA-256, the weights file's SHA-256, num_ctx and
// repeat_penalty (when the Modelfile sets them). A field
// the server does not give is left out; every value is bounded.
func (c *Client) ollamaModelInfo(ctx context.Context, info *EngineInfo, model string) {
	for _, k := range ollamaModelKeys {
		delete(info.Extra, k)
	}
	set := func(k, v string) {
		if v = strings.TrimSpace(v); v == "" {
			return
		}
		if info.Extra == nil {
			info.Extra = map[string]string{}
		}
		info.Extra[k] = redact.Clip(v, maxOllamaValue)
	}
	var tags ollamaTags
	if c.getJSON(ctx, engine.OllamaTagsPath, &tags) == nil {
		for _, m := range tags.Models {
			if !ollamaSameModel(m.Name, model) && !ollamaSameModel(m.Model, model) {
				continue
			}
			if isHex64(m.Digest) {
				set("ollama_digest", m.Digest)
			}
			set("model_format", m.Details.Format)
			set("model_family", m.Details.Family)
			set("parameter_size", m.Details.ParameterSize)
			set("quantization_level", m.Details.QuantizationLevel)
			break
		}
	}
	var show ollamaShow
	if c.postJSON(ctx, engine.OllamaShowPath, map[string]string{"model": model}, &show) != nil {
		return
	}
	if kind := engine.OllamaTemplateKind(show.Template); kind != "unknown" {
		set("ollama_template", kind)
		sum := sha256.Sum256([]byte(show.Template))
		set("ollama_template_sha256", hex.EncodeToString(sum[:]))
	}
	if _, h, ok := strings.Cut(show.Details.ParentModel, "sha256-"); ok && isHex64(h) {
		set("model_file_sha256", h)
	}
	if n, ok := ollamaParameter(show.Parameters, "num_ctx"); ok {
		set("ollama_num_ctx", n)
	}
	if p, ok := ollamaFloatParameter(show.Parameters, "repeat_penalty"); ok {
		set("ollama_repeat_penalty", p)
	}
}

// ollamaSameModel reports whether a served name and a requested one are
// the same model: Ollama reads a name without a tag as NAME:latest.
func ollamaSameModel(served, asked string) bool {
	if served == "" || asked == "" {
		return false
	}
	return served == asked || served == asked+":latest" || served+":latest" == asked
}

// ollamaParameter is the value of a positive integer parameter in
// /api/show's parameters text ("name   value" lines).
func ollamaParameter(text, name string) (string, bool) {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == name {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return f[1], true
			}
		}
	}
	return "", false
}

// ollamaFloatParameter is the value of a finite, non-negative number
// parameter in /api/show's parameters text, in its shortest form.
func ollamaFloatParameter(text, name string) (string, bool) {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == name {
			if x, err := strconv.ParseFloat(f[1], 64); err == nil && x >= 0 && x < 1e6 {
				return strconv.FormatFloat(x, 'g', -1, 64), true
			}
		}
	}
	return "", false
}

// isHex64 reports whether s is a SHA-256 in lowercase hex.
func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// postJSON sends body as JSON to path and decodes a JSON answer (at most
// 1 MiB) into v.
func (c *Client) postJSON(ctx context.Context, path string, body, v any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	c.auth(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: HTTP %d", path, resp.StatusCode)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("POST %s: %v", path, err)
	}
	return nil
}
