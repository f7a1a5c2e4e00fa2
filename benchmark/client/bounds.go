package client

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/redact"
)

// tokenCap is the most output tokens a request asking for maxTokens may
// report.
func tokenCap(maxTokens int) int {
	if maxTokens <= 0 || maxTokens > result.HardMaxTokens {
		return result.HardMaxTokens
	}
	return result.TokenFactor*maxTokens + result.TokenSlack
}

// Bounds of an answer's text kept for the next turn's history and for
// client-side token counts: MaxBytesPerToken bytes for each output token
// the request may claim (tokenCap), at most MaxAnswerBytes.
const (
	MaxBytesPerToken = 64
	MaxAnswerBytes   = 64 << 20
)

// answerCap is the most bytes of answer text kept for a request whose
// output tokens are capped at tokens.
func answerCap(tokens int) int {
	return min(tokens*MaxBytesPerToken, MaxAnswerBytes)
}

// checkUsage fails a usage object whose counts are negative or too large.
func checkUsage(prompt, completion int) *requestError {
	for _, c := range []struct {
		name string
		n    int
	}{{"prompt_tokens", prompt}, {"completion_tokens", completion}} {
		if c.n < 0 || c.n >= result.MaxUsageCount {
			return &requestError{result.ClassImplausible, fmt.Sprintf("usage.%s %d is outside [0, 2^31)", c.name, c.n)}
		}
	}
	return nil
}

// checkTokens fails a request whose output tokens so far exceed its cap.
func checkTokens(n, limit int) *requestError {
	if n > limit {
		return &requestError{result.ClassImplausible, fmt.Sprintf("the server claims %d output tokens, more than the %d this request allows", n, limit)}
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

// TrimV1 drops one trailing "/v1" (or "/v1/") from a server's base URL,
// as the OpenAI SDK's base_url has it: servecmp appends /v1/... itself,
// so "http://host:8000/v1" would otherwise ask for /v1/v1/models. Any
// other URL comes back unchanged.
func TrimV1(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.RawQuery != "" || u.Fragment != "" {
		return base
	}
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/v1") {
		return base
	}
	u.Path, u.RawPath = strings.TrimSuffix(p, "/v1"), ""
	return u.String()
}
