// This file reads engine iterations from host ranges (vLLM's step
// annotations by default).

package classify

import (
	"regexp"
	"strconv"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
)

// DefaultIteration matches the per-step NVTX ranges and record_function
// annotations that vLLM (and engines following its convention) emit around
// each model step, in the three spellings seen in real traces:
//
//	execute_context_1(2048)_generation_3(3)
//	execute_context_1(888_788544)_generation_0(0)                (tokens_sum of squares)
//	execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)
//
// In the last, sq is the number of query tokens (the tokens processed) and
// the rest are attention-cost terms that are not read. Its named groups are
// the ones Summarize reads: ctx_reqs, ctx_tokens, gen_reqs, gen_tokens.
var DefaultIteration = regexp.MustCompile(`execute_(?:\d+_)?context_(?P<ctx_reqs>\d+)\((?:sq)?(?P<ctx_tokens>\d+)[^)]*\)_generation_(?P<gen_reqs>\d+)\((?:sq)?(?P<gen_tokens>\d+)[^)]*\)`)

// iterVals are the counts parsed from one iteration range text.
type iterVals struct{ ctxReqs, ctxTokens, genReqs, genTokens int64 }

func parseIter(re *regexp.Regexp, text string) (iterVals, bool) {
	sub := re.FindStringSubmatch(text)
	if sub == nil {
		return iterVals{}, false
	}
	var v iterVals
	for i, name := range re.SubexpNames() {
		var dst *int64
		switch name {
		case "ctx_reqs":
			dst = &v.ctxReqs
		case "ctx_tokens":
			dst = &v.ctxTokens
		case "gen_reqs":
			dst = &v.genReqs
		case "gen_tokens":
			dst = &v.genTokens
		default:
			continue
		}
		if sub[i] == "" {
			continue
		}
		n, err := strconv.ParseInt(sub[i], 10, 64)
		if err != nil || n < 0 {
			return iterVals{}, false
		}
		*dst = n
	}
	return v, true
}

// countIterations reads the iteration ranges that start inside the window;
// nil when none match.
func countIterations(rank *event.Rank, re *regexp.Regexp, win interval.Interval) *Iterations {
	type cached struct {
		v  iterVals
		ok bool
	}
	cache := map[uint32]cached{} // by text id
	it := &Iterations{Pattern: re.String()}
	// The prefill/decode split needs ctx_tokens, the token histogram some
	// token count; a pattern without them only counts iterations.
	hasCtx := re.SubexpIndex("ctx_tokens") >= 0
	hasTokens := hasCtx || re.SubexpIndex("gen_tokens") >= 0
	var hist [65]int64
	for i := range rank.Ranges {
		r := &rank.Ranges[i]
		if (r.Kind != event.NVTX && r.Kind != event.Annotation) || r.Start < win.Start || r.Start >= win.End {
			continue
		}
		c, seen := cache[r.Text]
		if !seen {
			if rank.Names != nil {
				c.v, c.ok = parseIter(re, rank.Names.Name(r.Text))
			}
			cache[r.Text] = c
		}
		if !c.ok {
			continue
		}
		v := c.v
		it.Count++
		it.CtxRequests += v.ctxReqs
		it.CtxTokens += v.ctxTokens
		it.GenRequests += v.genReqs
		it.GenTokens += v.genTokens
		switch {
		case !hasCtx:
		case v.ctxTokens > 0:
			it.Prefill.add(v)
		default:
			it.Decode.add(v)
		}
		if hasTokens {
			hist[tokenBucket(v.ctxTokens+v.genTokens)]++
		}
	}
	if it.Count == 0 {
		return nil
	}
	for b, n := range hist {
		if n > 0 {
			lo, hi := bucketBounds(b)
			it.TokensHistogram = append(it.TokensHistogram, Bucket{Lo: lo, Hi: hi, Count: n})
		}
	}
	return it
}

// tokenBucket is 0 for 0 tokens and k+1 for tokens in [2^k, 2^(k+1)).
func tokenBucket(n int64) int {
	if n <= 0 {
		return 0
	}
	b := 0
	for n > 0 {
		n >>= 1
		b++
	}
	return b
}

func bucketBounds(b int) (lo, hi int64) {
	if b == 0 {
		return 0, 1
	}
	if b >= 64 {
		return 1 << 62, 1<<63 - 1
	}
	return 1 << (b - 1), 1 << b
}

func (m *IterMix) add(v iterVals) {
	m.Iterations++
	m.CtxRequests += v.ctxReqs
	m.CtxTokens += v.ctxTokens
	m.GenRequests += v.genReqs
	m.GenTokens += v.genTokens
}

// work derives completed work from the iterations: requests are the
// summed ctx_reqs (each request is prefilled once), input tokens the summed
// ctx_tokens, and output tokens the summed gen_tokens plus ctx_reqs, since
// each prefill emits a request's first token. With chunked prefill a request
// is counted once per chunk, so requests and output tokens are then upper
// bounds.
func (it *Iterations) work() *Work {
	return &Work{Requests: it.CtxRequests, InputTokens: it.CtxTokens, OutputTokens: it.GenTokens + it.CtxRequests, From: "iterations"}
}
