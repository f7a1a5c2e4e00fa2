package check

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/internal/redact"
)

// This file settles each side before the check's first request, with the
// detection benchmark uses (client.Detect): the engine behind an auto
// style, the model when none was given, and whether the engine takes
// the workload's prompt forms.

// detectTimeout bounds one side's detection.
const detectTimeout = 10 * time.Second

// prepare detects side's engine. An auto style becomes the engine's own
// when detection names llama.cpp or Ollama, whose requests and answers
// auto's probe (vLLM's extras, then plain OpenAI) would get wrong
// (llama.cpp's token ids, Ollama's max_tokens on chat); other engines
// stay auto, which serves them as before. With no model given it
// takes the only one served; several served, or token-id prompts sent to
// an engine known to take text only, is a *client.SetupError. An engine
// that does not answer detection is left as it is: its requests will
// fail and say why.
func (c *engineClient) prepare(ctx context.Context, side string, w *workload.Workload) error {
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	cl := client.New(client.Options{BaseURL: c.t.URL, APIKey: c.opt.APIKey, Conns: 1})
	defer cl.Close()
	name := c.style
	if name == "" {
		name = engine.Auto
	}
	info, err := cl.Detect(ctx, name)
	if err != nil {
		return nil
	}
	c.info = info
	if d := engine.Dialect(info.Engine); c.style == engine.Auto && (d == engine.LlamaCpp || d == engine.Ollama) {
		c.style = info.Engine
	}
	if c.t.Model == "" {
		if c.t.Model, err = info.ModelChoice(c.t.URL, "--model or --model-"+strings.ToLower(side)); err != nil {
			return err
		}
	}
	cl.ModelInfo(ctx, &info, c.t.Model)
	c.info = info
	n := 0
	for i := range w.Requests {
		if w.Requests[i].Kind() == workload.KindTokens {
			n++
		}
	}
	return client.TokenPromptError(fmt.Sprintf("engine %s at %s: ", side, redact.URL(c.t.URL)), engine.Dialect(c.style), n, c.opt.TextWorkloadHow)
}

// refusedTokens is the *client.SetupError of an engine whose prompt forms
// are not known and that refused the workload's first token-id prompt
// (out.Error, an HTTP 400 or 422), or nil.
func (c *engineClient) refusedTokens(side string, req *workload.Request, first bool, out string) error {
	if !first || req.Kind() != workload.KindTokens || engine.Dialect(c.style).TokenPromptsKnown() || !isRejected(out) {
		return nil
	}
	return &client.SetupError{Msg: fmt.Sprintf("engine %s at %s refused the workload's first token-id prompt (%s): "+
		"if it takes text prompts only, make a text or chat workload (%s)", side, redact.URL(c.t.URL), redact.Clip(out, 200), cmp.Or(c.opt.TextWorkloadHow, engine.TextWorkloadHow))}
}

// truncated turns an answer that ended without a finish reason into the
// failure it is: the engine cut it short (Ollama's repeat limit, a
// dropped connection behind a proxy), so its text and counts are not an
// answer to compare.
func (c *engineClient) truncated(out *checkreport.Output) {
	if !out.OK || out.FinishReason != "" {
		return
	}
	msg := "truncated: the answer ended without a finish_reason"
	if n := engine.Dialect(c.style).RepeatLimit(); n > 0 {
		msg += fmt.Sprintf(" (engine %s ends a generation that repeats one piece of text more than %d times that way)", c.style, n)
	}
	*out = checkreport.Output{Error: msg, CompletionTokens: -1, Text: out.Text}
}

// notes are what the report says about the engines' detected settings
// that bear on an exact-match check: a repeat penalty on Ollama's side
// (its default, unless the model's Modelfile sets 1), which makes an
// output diverge as soon as a token would repeat.
func (c *engineClient) notes(side string) []string {
	if engine.Dialect(c.style) != engine.Ollama {
		return nil
	}
	p := c.info.Extra["ollama_repeat_penalty"]
	if p == "1" {
		return nil
	}
	if p == "" {
		p = fmt.Sprint(engine.OllamaRepeatPenalty) + " (its default)"
	}
	return []string{fmt.Sprintf("engine %s (ollama) applies a repeat penalty of %s, which no request field changes: outputs diverge from an engine without one "+
		"once a token would repeat; a model made with PARAMETER repeat_penalty 1 in its Modelfile avoids it", side, p)}
}
