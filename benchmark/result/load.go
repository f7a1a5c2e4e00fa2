package result

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Mode is a load mode: how requests are offered.
type Mode string

// Load modes.
const (
	ModeConcurrency Mode = "concurrency" // closed loop
	ModeRate        Mode = "rate"        // open loop
	ModeTrace       Mode = "trace"       // every request carries its arrival offset
)

// Drain rules.
const (
	DrainWait   = "wait"
	DrainCancel = "cancel"
)

// Validate checks a load policy and fills defaults (arrival, drain).
func (l *LoadPolicy) Validate() error {
	switch l.Mode {
	case ModeConcurrency:
		if l.Concurrency < 1 {
			return errors.New("concurrency must be at least 1")
		}
	case ModeRate:
		if err := l.validateRate(); err != nil {
			return err
		}
	case ModeTrace:
	default:
		return fmt.Errorf("unknown load mode %q", l.Mode)
	}
	if l.MaxConcurrency < 0 || l.Warmup < 0 || l.DurationS < 0 || l.DrainTimeoutS < 0 || l.RequestTimeoutS < 0 {
		return errors.New("max-concurrency, warmup, duration, drain-timeout and request-timeout must not be negative")
	}
	if err := l.validateBounds(); err != nil {
		return err
	}
	if l.Drain == "" {
		l.Drain = DrainWait
	}
	if l.Drain != DrainWait && l.Drain != DrainCancel {
		return fmt.Errorf("unknown drain rule %q (want wait or cancel)", l.Drain)
	}
	return nil
}

func (l *LoadPolicy) validateRate() error {
	if !(l.Rate > 0) {
		return errors.New("rate must be a positive number of requests/s, or inf (all at once)")
	}
	if l.Arrival == "" {
		l.Arrival = ArrivalPoisson
	}
	switch l.Arrival {
	case ArrivalConstant, ArrivalPoisson:
	case ArrivalGamma:
		if !(l.Burstiness > 0) || math.IsInf(l.Burstiness, 0) {
			return errors.New("burstiness must be a positive gamma shape")
		}
	default:
		return fmt.Errorf("unknown arrival %q (want constant, poisson or gamma)", l.Arrival)
	}
	return nil
}

// String describes the offered load in words, e.g. "concurrency 8, 200
// measured requests, warmup 10, drain wait".
func (l LoadPolicy) String() string {
	var parts []string
	switch l.Mode {
	case ModeConcurrency:
		parts = append(parts, fmt.Sprintf("concurrency %d", l.Concurrency))
	case ModeRate:
		parts = append(parts, fmt.Sprintf("rate %g req/s (%s", l.Rate, l.Arrival))
		if l.Burstiness != 0 && l.Burstiness != 1 {
			parts[0] += fmt.Sprintf(", burstiness %g", l.Burstiness)
		}
		parts[0] += ")"
		if l.MaxConcurrency > 0 {
			parts = append(parts, fmt.Sprintf("max concurrency %d", l.MaxConcurrency))
		}
	case "":
		parts = append(parts, "unknown")
	default:
		parts = append(parts, string(l.Mode))
	}
	parts = append(parts, fmt.Sprintf("%d measured requests", l.Requests), fmt.Sprintf("warmup %d", l.Warmup))
	if l.DurationS > 0 {
		parts = append(parts, fmt.Sprintf("duration %g s", l.DurationS))
	}
	if l.Drain != "" {
		parts = append(parts, "drain "+l.Drain)
	}
	return strings.Join(parts, ", ")
}

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
	// MinRate bounds --rate from below (requests/s): one request a week
	// (MaxTimeS), the longest a run may wait; below it a run would only
	// wait.
	MinRate = 1.0 / MaxTimeS
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

// validateBounds checks a load policy's values against the bounds above.
func (l *LoadPolicy) validateBounds() error {
	switch {
	case l.Concurrency > MaxConcurrencyLimit || l.MaxConcurrency > MaxConcurrencyLimit:
		return fmt.Errorf("concurrency above %d", MaxConcurrencyLimit)
	case l.Rate > MaxRate && !math.IsInf(l.Rate, 1): // +Inf: every request at once
		return fmt.Errorf("rate above %g requests/s", MaxRate)
	case l.Rate > 0 && l.Rate < MinRate:
		return fmt.Errorf("rate %g requests/s is below %.3g (one request a week, the longest a run waits)", l.Rate, MinRate)
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

// Arrival processes for open-loop runs.
const (
	ArrivalConstant = "constant"
	ArrivalPoisson  = "poisson"
	ArrivalGamma    = "gamma"
)
