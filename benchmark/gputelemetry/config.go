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
	// ("GPU-…"); empty means every GPU the exporter reports. A UUID that
	// another exporter reports is not missing here: one selection may
	// serve every node.
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

// Endpoints reads the exporters of one engine as a user gives them: URLs
// (one per node) and one GPU selection (ParseGPUs) that serves every
// node. No URL, or the single word "none", switches GPU telemetry off
// (nil); a selection without a URL is an error.
func Endpoints(urls []string, gpus string) ([]Endpoint, error) {
	sel, err := ParseGPUs(gpus)
	if err != nil {
		return nil, err
	}
	if len(urls) == 0 || len(urls) == 1 && strings.TrimSpace(urls[0]) == "none" {
		if len(sel) > 0 {
			return nil, fmt.Errorf("a GPU selection (%s) needs a GPU exporter URL", strings.Join(sel, ","))
		}
		return nil, nil
	}
	out := make([]Endpoint, 0, len(urls))
	for _, u := range urls {
		u = strings.TrimSpace(u)
		if u == "none" {
			return nil, fmt.Errorf(`"none" switches GPU telemetry off: give it alone, without exporter URLs`)
		}
		out = append(out, Endpoint{URL: u, GPUs: sel})
	}
	if err := (Config{Endpoints: out}).Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// isIndex reports whether a selection token is a GPU index.
func isIndex(tok string) bool {
	_, err := strconv.ParseUint(tok, 10, 16)
	return err == nil
}

// checkGPUToken accepts a decimal index or a GPU or MIG UUID.
func checkGPUToken(tok string) error {
	if isIndex(tok) {
		return nil
	}
	if (strings.HasPrefix(tok, "GPU-") || strings.HasPrefix(tok, "MIG-")) && len(tok) <= maxLabel &&
		strings.Trim(tok[4:], "0123456789abcdefABCDEF-") == "" && len(tok) > 4 {
		return nil
	}
	return fmt.Errorf("GPU selection: %q is neither an index nor a GPU UUID (GPU-…)", clip(tok))
}

// Validate reports a configuration the scraper cannot run.
func (c Config) Validate() error {
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
