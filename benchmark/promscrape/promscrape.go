// Package promscrape fetches and parses Prometheus text pages (an
// engine's /metrics, a dcgm-exporter) under servecmp's one client policy
// (internal/httppolicy), with the scrape's own bounds:
//
//   - no proxy: the environment's HTTP_PROXY is ignored, so a scrape
//     reaches the host it names and nothing else;
//   - no redirect is followed: a 3xx answer is an error naming its status
//     and where it pointed (credentials masked); the target is never asked;
//   - one scrape is bounded in time (the client's timeout and the caller's
//     context), the page in bytes (read up to the limit plus one byte: a
//     longer page is an error, never silently cut) and in sample lines,
//     counted before the parser builds anything.
//
// Sizes are bytes; a series is one sample line of the text format. The
// parser is the Prometheus client library's, with UTF-8 names and label
// values validated. Errors never carry URL credentials.
package promscrape

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/servecmp/servecmp/internal/httppolicy"
	"github.com/servecmp/servecmp/internal/redact"
)

// NewClient returns a client under the one client policy
// (httppolicy.Client: no proxy, no redirects, bounded dial) with at most
// timeout per request (5 s when zero or negative). A scrape sends no
// credentials of servecmp's own.
func NewClient(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return httppolicy.Client(httppolicy.Options{Timeout: timeout})
}

// Get fetches url and returns its body, at most maxBody bytes, and the
// HTTP status (0 when no answer came). Any status but 200 is an error.
func Get(ctx context.Context, c *http.Client, url string, maxBody int64) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, errors.New(redact.Text(err.Error()))
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	resp, err := c.Do(req)
	if err != nil {
		status := 0
		if resp != nil { // a refused redirect: the 3xx answer, body closed
			status = resp.StatusCode
		}
		return nil, status, errors.New(redact.Text(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		httppolicy.Drain(resp.Body, 1<<16)
		return nil, resp.StatusCode, fmt.Errorf("GET %s: %s", redact.URL(url), resp.Status)
	}
	if resp.ContentLength > maxBody {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: page over %d bytes (%d announced)", redact.URL(url), maxBody, resp.ContentLength)
	}
	body, err := httppolicy.ReadBody(resp.Body, maxBody)
	if errors.Is(err, httppolicy.ErrTooLarge) {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: page over %d bytes", redact.URL(url), maxBody)
	}
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: reading the page: %s", redact.URL(url), redact.Text(err.Error()))
	}
	return body, resp.StatusCode, nil
}

// CheckSeries returns an error when body holds more than maxSeries
// sample lines (lines that are neither blank nor comments).
func CheckSeries(body []byte, maxSeries int) error {
	n := 0
	for line := range bytes.Lines(body) {
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 || line[0] == '#' || line[0] == '\n' || line[0] == '\r' {
			continue
		}
		if n++; n > maxSeries {
			return fmt.Errorf("page holds more than %d series", maxSeries)
		}
	}
	return nil
}

// Families parses a page in the text exposition format after checking
// its series count. It never panics.
func Families(body []byte, maxSeries int) (map[string]*dto.MetricFamily, error) {
	if err := CheckSeries(body, maxSeries); err != nil {
		return nil, err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parsing metrics: %w", err)
	}
	return fams, nil
}

// Value returns a gauge's, counter's or untyped sample's value; false for
// other types, a missing value, NaN or an infinity.
func Value(t dto.MetricType, m *dto.Metric) (float64, bool) {
	var v float64
	switch {
	case t == dto.MetricType_GAUGE && m.Gauge != nil:
		v = m.Gauge.GetValue()
	case t == dto.MetricType_COUNTER && m.Counter != nil:
		v = m.Counter.GetValue()
	case t == dto.MetricType_UNTYPED && m.Untyped != nil:
		v = m.Untyped.GetValue()
	default:
		return 0, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
