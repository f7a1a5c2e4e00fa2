package servermetrics

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/servecmp/servecmp/benchmark/promscrape"
	"github.com/servecmp/servecmp/internal/redact"
)

// maxSeries bounds the sample lines of one /metrics page.
const maxSeries = 1 << 18

// scrapeClient is the scrape policy's client: no proxy, no redirects, 5 s.
func scrapeClient() *http.Client { return promscrape.NewClient(5 * time.Second) }

// fetch gets one page under the scrape policy and parses it.
func fetch(ctx context.Context, c *http.Client, url string) (Snapshot, int, error) {
	body, status, err := promscrape.Get(ctx, c, url, maxBody)
	if err != nil {
		return Snapshot{}, status, err
	}
	if err := promscrape.CheckSeries(body, maxSeries); err != nil {
		return Snapshot{}, status, fmt.Errorf("GET %s: %w", redact.URL(url), err)
	}
	snap, err := Parse(bytes.NewReader(body))
	if err != nil {
		return Snapshot{}, status, fmt.Errorf("GET %s: %w", redact.URL(url), err)
	}
	return snap, status, nil
}
