package gputelemetry

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/servecmp/servecmp/internal/redact"
)

// Defaults for a zero Config.
const (
	DefaultInterval = time.Second
	DefaultTimeout  = 2 * time.Second
)

// Bounds on what a Config may ask for.
const (
	maxEndpoints = 64
	maxSelect    = 256
	maxGPUsTotal = 256
)

// Endpoint is one node's exporter and the GPUs of the engine on it.
type Endpoint struct {
	URL string
	// GPUs selects the engine's GPUs on this node by index ("0") or UUID
	// ("GPU-…"); empty means every GPU the exporter reports.
	GPUs []string
}

// Config sets a Scraper.
type Config struct {
	Endpoints []Endpoint
	// Every is the period of the scrapes between the window's edges
	// (DefaultInterval when zero or negative).
	Every time.Duration
	// Timeout bounds one scrape of one exporter (DefaultTimeout when zero
	// or negative).
	Timeout time.Duration
	// Client, when set, replaces the scrape policy's client (tests).
	Client *http.Client
}

// ParseGPUs reads a GPU selection: "" or "all" selects every GPU;
// otherwise a comma-separated list of indices and UUIDs.
func ParseGPUs(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return nil, nil
	}
	var out []string
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		if err := checkGPUToken(tok); err != nil {
			return nil, err
		}
		out = append(out, tok)
	}
	if len(out) > maxSelect {
		return nil, fmt.Errorf("GPU selection: %d GPUs, at most %d", len(out), maxSelect)
	}
	return out, nil
}

// checkGPUToken accepts a decimal index or a GPU or MIG UUID.
func checkGPUToken(tok string) error {
	if _, err := strconv.ParseUint(tok, 10, 16); err == nil {
		return nil
	}
	if (strings.HasPrefix(tok, "GPU-") || strings.HasPrefix(tok, "MIG-")) && len(tok) <= maxLabel &&
		strings.Trim(tok[4:], "0123456789abcdefABCDEF-") == "" && len(tok) > 4 {
		return nil
	}
	return fmt.Errorf("GPU selection: %q is neither an index nor a GPU UUID (GPU-…)", clip(tok))
}

// validate reports a configuration the scraper cannot run.
func (c Config) validate() error {
	if len(c.Endpoints) == 0 {
		return fmt.Errorf("GPU telemetry: no exporter URL")
	}
	if len(c.Endpoints) > maxEndpoints {
		return fmt.Errorf("GPU telemetry: %d exporters, at most %d", len(c.Endpoints), maxEndpoints)
	}
	seen := map[string]bool{}
	for _, e := range c.Endpoints {
		u, err := url.Parse(e.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("GPU telemetry: %q is not an http(s) URL", redact.URL(e.URL))
		}
		if seen[e.URL] {
			return fmt.Errorf("GPU telemetry: exporter %s given twice", redact.URL(e.URL))
		}
		seen[e.URL] = true
		if len(e.GPUs) > maxSelect {
			return fmt.Errorf("GPU telemetry: %d GPUs selected on %s, at most %d", len(e.GPUs), redact.URL(e.URL), maxSelect)
		}
		for _, g := range e.GPUs {
			if err := checkGPUToken(g); err != nil {
				return err
			}
		}
	}
	return nil
}
