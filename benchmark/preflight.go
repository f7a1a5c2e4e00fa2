package benchmark

import (
	"context"
	"fmt"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/engine"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/redact"
)

// This file holds what a run settles with the engine after detection and
// before its first measured request: whether the engine takes the
// workload's prompt form, and whether its metrics endpoint is scraped.

// promptForms stops the run before the load when the workload holds
// token-id prompts that the engine cannot take: at once for a dialect
// known to take text only (Ollama), after one short request for an engine
// whose prompt forms are not known (a plain OpenAI-compatible server,
// TGI), whose HTTP 400 or 422 answer stands for every such request. Both
// are a *client.SetupError naming what to do.
func (r *runner) promptForms(ctx context.Context) error {
	first, n := -1, 0
	for i := range r.reqs {
		if r.reqs[i].Kind() == workload.KindTokens {
			n++
			if first < 0 {
				first = i
			}
		}
	}
	d := engine.Dialect(r.info.Engine)
	if n == 0 || d.TokenPromptsKnown() {
		return client.TokenPromptError("", d, n, r.cfg.TextWorkloadHow)
	}
	q := warmupRequest(&r.reqs[first])
	q.ID = r.reqs[first].ID + "-preflight"
	q.MaxTokens, q.FixedLength = 1, false
	p, err := client.Prepare(&q, r.model, r.info.Engine, func(string) {})
	if err != nil {
		return fmt.Errorf("workload %s: %w", r.cfg.Workload.Path, err)
	}
	var rec result.Record
	r.client.Do(ctx, client.NewClock(), &p, &rec, nil)
	if rec.ErrorClass != "http_400" && rec.ErrorClass != "http_422" {
		return nil // taken, or a failure the measured requests will show
	}
	how := r.cfg.TextWorkloadHow
	if how == "" {
		how = engine.TextWorkloadHow
	}
	return &client.SetupError{Msg: fmt.Sprintf("engine %s at %s refused a token-id prompt before the load (%s: %s), and %d request(s) of the workload are token ids: "+
		"if it takes text prompts only, make a text or chat workload (%s)",
		d, redact.URL(r.client.BaseURL()), rec.ErrorClass, redact.Clip(rec.Error, 200), n, how)}
}

// metricsConfig is the scrape the run makes: none when the caller left
// the endpoint at its default and the detected engine has none, which
// the result notes once.
func (r *runner) metricsConfig() MetricsConfig {
	mc := r.cfg.Metrics
	if mc.URL == "" || !mc.Default || engine.Dialect(r.info.Engine).MetricsPath() != "" {
		return mc
	}
	r.res.Notes = append(r.res.Notes, fmt.Sprintf("server metrics: not scraped (engine %s has no metrics endpoint)", r.info.Engine))
	return MetricsConfig{}
}
