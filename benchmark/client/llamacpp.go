package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/servecmp/servecmp/benchmark/engine"
)

// llamaPropsBody is the part of llama.cpp's GET /props that servecmp
// records. default_generation_settings.n_ctx is the context of one slot
// (the server's -c divided among its -np slots).
type llamaPropsBody struct {
	BuildInfo  string `json:"build_info"`
	ModelPath  string `json:"model_path"`
	TotalSlots int    `json:"total_slots"`
	Defaults   struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
}

// llamaProps asks GET /props and, when it answers as llama.cpp does
// (build_info and total_slots), fills info's engine, version and extra
// fields. It reports whether it did.
func (c *Client) llamaProps(ctx context.Context, info *EngineInfo) bool {
	var p llamaPropsBody
	if c.getJSON(ctx, engine.PropsPath, &p) != nil || p.BuildInfo == "" || p.TotalSlots <= 0 {
		return false
	}
	if info.Engine == engine.Auto {
		info.Engine = string(engine.LlamaCpp)
	}
	info.Version = p.BuildInfo
	if info.Extra == nil {
		info.Extra = map[string]string{}
	}
	info.Extra["llamacpp_slots"] = strconv.Itoa(p.TotalSlots)
	if p.ModelPath != "" {
		info.Extra["model_file"] = p.ModelPath
	}
	if p.Defaults.NCtx > 0 {
		info.Extra["context_per_slot"] = strconv.Itoa(p.Defaults.NCtx)
	}
	return true
}

// errNoLlamaReset says why llama.cpp's prompt cache could not be reset.
var errNoLlamaReset = errors.New("llama.cpp cannot empty its prompt cache over HTTP here: slot erase needs the server started with " +
	"--slot-save-path, and its host-memory prompt cache (--cache-ram) has no reset at all; start llama-server with " +
	"--cache-ram 0 --no-cache-prompt for runs without cache reuse")

// resetLlamaSlots erases the KV cache of every slot of a llama.cpp
// server (POST /slots/{id}?action=erase for each of /props total_slots).
// Even when every erase succeeds it returns an error, reported as a
// warning: the host-memory prompt cache survives, and it restores whole
// prompts (measured: a prompt sent before the erase came back fully
// cached after it).
func (c *Client) resetLlamaSlots(ctx context.Context) error {
	var p llamaPropsBody
	if err := c.getJSON(ctx, engine.PropsPath, &p); err != nil {
		return fmt.Errorf("llama.cpp: %v", err)
	}
	if p.TotalSlots <= 0 {
		return fmt.Errorf("llama.cpp: GET %s reports no slots", engine.PropsPath)
	}
	for id := range p.TotalSlots {
		if err := c.post(ctx, fmt.Sprintf(engine.SlotErase, id)); err != nil {
			return fmt.Errorf("%w (%v)", errNoLlamaReset, err)
		}
	}
	return fmt.Errorf("llama.cpp: erased the KV cache of all %d slots, but its host-memory prompt cache (--cache-ram) cannot be emptied "+
		"over HTTP and may still serve earlier prompts (see cached_share); start llama-server with --cache-ram 0 for a full reset", p.TotalSlots)
}
