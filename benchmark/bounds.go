package benchmark

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/servecmp/servecmp/internal/redact"
)

// Bounds on the values that enter a run from outside: from the user (the
// configuration, checked before any request) and from the server (token
// counts, checked as each chunk arrives). A request whose server reports
// a count beyond them fails with ClassImplausible; its counts never reach
// a summary.
const (
	// MaxConcurrencyLimit bounds --concurrency and --max-concurrency.
	MaxConcurrencyLimit = 100_000
	// MaxRate bounds --rate (requests/s).
	MaxRate = 1e6
	// MaxTimeS bounds every duration of the load policy (seconds): one
	// week.
	MaxTimeS = 7 * 86400
	// MaxUsageCount bounds a usage count (prompt_tokens,
	// completion_tokens): counts must lie in [0, MaxUsageCount).
	MaxUsageCount = 1 << 31
	// TokenFactor and TokenSlack bound the output tokens a request may
	// claim: at most TokenFactor*max_tokens + TokenSlack (servers count an
	// end-of-sequence token or two beyond max_tokens, never twice as many).
	TokenFactor = 2
	TokenSlack  = 16
	// HardMaxTokens bounds the output tokens of a request without
	// max_tokens.
	HardMaxTokens = 1 << 24
)

// ClassImplausible is the failure class of a request whose server
// reported a token count outside the bounds above.
const ClassImplausible = "implausible_count"

// tokenCap is the most output tokens a request asking for maxTokens may
// report.
func tokenCap(maxTokens int) int {
	if maxTokens <= 0 || maxTokens > HardMaxTokens {
		return HardMaxTokens
	}
	return TokenFactor*maxTokens + TokenSlack
}

// checkUsage fails a usage object whose counts are negative or too large.
func checkUsage(prompt, completion int) *requestError {
	for _, c := range []struct {
		name string
		n    int
	}{{"prompt_tokens", prompt}, {"completion_tokens", completion}} {
		if c.n < 0 || c.n >= MaxUsageCount {
			return &requestError{ClassImplausible, fmt.Sprintf("usage.%s %d is outside [0, 2^31)", c.name, c.n)}
		}
	}
	return nil
}

// checkTokens fails a request whose output tokens so far exceed its cap.
func checkTokens(n, limit int) *requestError {
	if n > limit {
		return &requestError{ClassImplausible, fmt.Sprintf("the server claims %d output tokens, more than the %d this request allows", n, limit)}
	}
	return nil
}

// ValidateBaseURL checks a server base URL: http or https with a host. The
// error quotes the URL with its credentials redacted.
func ValidateBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%s is not a valid URL", redact.URL(s))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s: want an http:// or https:// URL", redact.URL(s))
	}
	if u.Host == "" || strings.HasPrefix(u.Host, ":") {
		return fmt.Errorf("%s has no host", redact.URL(s))
	}
	return nil
}

// validateBounds checks a load policy's values against the bounds above.
func (l *LoadPolicy) validateBounds() error {
	switch {
	case l.Concurrency > MaxConcurrencyLimit || l.MaxConcurrency > MaxConcurrencyLimit:
		return fmt.Errorf("concurrency above %d", MaxConcurrencyLimit)
	case l.Rate > MaxRate && !math.IsInf(l.Rate, 1): // +Inf: every request at once
		return fmt.Errorf("rate above %g requests/s", MaxRate)
	case l.Warmup > HardMaxTokens:
		return fmt.Errorf("warmup above %d requests", HardMaxTokens)
	}
	for _, d := range []float64{l.DurationS, l.DrainTimeoutS, l.RequestTimeoutS} {
		if math.IsNaN(d) || d > MaxTimeS {
			return errors.New("duration, drain-timeout and request-timeout must be at most 168h")
		}
	}
	return nil
}
