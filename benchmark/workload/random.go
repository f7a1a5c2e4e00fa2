package workload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// FirstTokenID is the smallest token id a random prompt uses: ids 0, 1
// and 2 are left out because most vocabularies put special tokens (pad,
// BOS, EOS, UNK) there.
const FirstTokenID = 3

// DefaultVocab is the default exclusive upper bound of random token ids.
const DefaultVocab = 32000

// Length is a request length in tokens: a fixed number, a uniform integer
// range, or a distribution. Every sampled value is rounded to the nearest
// integer and clamped to at least 1.
type Length struct {
	kind string // "fixed", "range", "normal", "lognormal", "exp"
	a, b float64
}

// ParseLength reads a length spec:
//
//	128               fixed
//	64:256            uniform integer in [64, 256], both ends included
//	normal:MEAN,STD   round(N(MEAN, STD²))
//	lognormal:MU,SIGMA round(exp(N(MU, SIGMA²)))
//	exp:MEAN          round(exponential with mean MEAN)
func ParseLength(s string) (Length, error) {
	s = strings.TrimSpace(s)
	if kind, args, ok := strings.Cut(s, ":"); ok && (kind == "normal" || kind == "lognormal" || kind == "exp") {
		parts := strings.Split(args, ",")
		want := 2
		if kind == "exp" {
			want = 1
		}
		if len(parts) != want {
			return Length{}, fmt.Errorf("length %q: %s takes %d number(s)", s, kind, want)
		}
		var v [2]float64
		for i, p := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return Length{}, fmt.Errorf("length %q: %q is not a number", s, p)
			}
			v[i] = f
		}
		switch kind {
		case "normal":
			if v[0] < 1 || v[1] < 0 {
				return Length{}, fmt.Errorf("length %q: need MEAN >= 1 and STD >= 0", s)
			}
		case "lognormal":
			if v[1] < 0 {
				return Length{}, fmt.Errorf("length %q: need SIGMA >= 0", s)
			}
		case "exp":
			if v[0] <= 0 {
				return Length{}, fmt.Errorf("length %q: need MEAN > 0", s)
			}
		}
		return Length{kind: kind, a: v[0], b: v[1]}, nil
	}
	if lo, hi, ok := strings.Cut(s, ":"); ok {
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil {
			return Length{}, fmt.Errorf("length %q: want N, A:B, normal:MEAN,STD, lognormal:MU,SIGMA or exp:MEAN", s)
		}
		if a < 1 || b < a {
			return Length{}, fmt.Errorf("length %q: need 1 <= A <= B", s)
		}
		return Length{kind: "range", a: float64(a), b: float64(b)}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return Length{}, fmt.Errorf("length %q: want N, A:B, normal:MEAN,STD, lognormal:MU,SIGMA or exp:MEAN", s)
	}
	if n < 1 {
		return Length{}, fmt.Errorf("length %q: must be >= 1", s)
	}
	return Length{kind: "fixed", a: float64(n)}, nil
}

// IsZero reports whether l is the zero Length (no spec given).
func (l Length) IsZero() bool { return l.kind == "" }

// String gives the spec back in ParseLength syntax.
func (l Length) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch l.kind {
	case "fixed":
		return f(l.a)
	case "range":
		return f(l.a) + ":" + f(l.b)
	case "normal", "lognormal":
		return l.kind + ":" + f(l.a) + "," + f(l.b)
	case "exp":
		return "exp:" + f(l.a)
	}
	return ""
}

// Sample draws one length from r. A fixed length draws nothing from r.
func (l Length) Sample(r *rand.Rand) int {
	var x float64
	switch l.kind {
	case "fixed":
		return int(l.a)
	case "range":
		return int(l.a) + r.IntN(int(l.b)-int(l.a)+1)
	case "normal":
		x = l.a + l.b*r.NormFloat64()
	case "lognormal":
		x = math.Exp(l.a + l.b*r.NormFloat64())
	case "exp":
		x = l.a * r.ExpFloat64()
	default:
		return 1
	}
	x = math.Round(x)
	if x < 1 || math.IsNaN(x) {
		return 1
	}
	if x > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(x)
}

// RandomSpec describes a synthetic token-id workload.
type RandomSpec struct {
	Num       int
	InputLen  Length // random part of each prompt, after the shared prefix
	OutputLen Length // max_tokens
	Seed      uint64
	Vocab     int // token ids are drawn uniformly from [FirstTokenID, Vocab)
	// PrefixLen tokens, drawn once, start every prompt (prefix-cache
	// experiments); a prompt is PrefixLen + InputLen tokens long.
	PrefixLen   int
	FixedLength bool
	// Sampling is copied into every request. When Temperature > 0 and
	// RequestSeeds is set, each request also gets its own sampling seed,
	// derived from Seed and its index, so seeded sampling is reproducible.
	Sampling     Sampling
	RequestSeeds bool
	// RequestRate > 0 gives requests arrival offsets: gaps are
	// Gamma(shape=Burstiness, rate=RequestRate·Burstiness), so the mean
	// rate is RequestRate; Burstiness 1 is a Poisson process (0 means 1).
	RequestRate float64
	Burstiness  float64
	// Text, when set, makes the prompts real text or chat of the same
	// exact lengths under its tokenizer instead of token ids (Vocab is
	// then unused).
	Text *TextPrompts
}

// Header is the workload header spec calls for: nil for token-id prompts.
func (spec RandomSpec) Header() *Header {
	if spec.Text == nil || spec.Text.Tokenizer == nil {
		return nil
	}
	return spec.Text.header()
}

// Stream constants that separate the random streams drawn from one seed,
// so adding arrivals or a prefix never changes the lengths.
const (
	streamLengths  = 0x6c656e67746873 // "lengths"
	streamPrefix   = 0x707265666978   // "prefix"
	streamArrivals = 0x617272697661   // "arriva"
	streamSeeds    = 0x7365656473     // "seeds"
)

// Bounds of a random workload: beyond them a spec is a mistake that
// would exhaust memory before anything is written.
const (
	MaxRandomRequests = 1 << 24
	// MaxRandomTokens bounds the prompt tokens of all requests together.
	MaxRandomTokens = 1 << 28
)

// Validate checks a spec against the generator's bounds without making
// anything: what RandomContext would refuse before its first request.
func (spec RandomSpec) Validate() error { return spec.check() }

// check validates a spec (filling defaults in its own copy).
func (spec RandomSpec) check() error {
	if spec.Num <= 0 || spec.Num > MaxRandomRequests {
		return fmt.Errorf("random workload: --num must be in [1, %d], got %d", MaxRandomRequests, spec.Num)
	}
	if spec.InputLen.IsZero() || spec.OutputLen.IsZero() {
		return errors.New("random workload: input and output lengths are required")
	}
	if spec.Vocab == 0 {
		spec.Vocab = DefaultVocab
	}
	if spec.Vocab <= FirstTokenID {
		return fmt.Errorf("random workload: --vocab must be > %d, got %d", FirstTokenID, spec.Vocab)
	}
	if spec.PrefixLen < 0 || spec.PrefixLen > MaxMaxTokens {
		return fmt.Errorf("random workload: --prefix-len must be in [0, %d], got %d", MaxMaxTokens, spec.PrefixLen)
	}
	if spec.RequestRate < 0 || math.IsNaN(spec.RequestRate) || math.IsInf(spec.RequestRate, 0) {
		return fmt.Errorf("random workload: --request-rate must be a finite number >= 0, got %v", spec.RequestRate)
	}
	if spec.Burstiness == 0 {
		spec.Burstiness = 1
	}
	if spec.Burstiness < 0 || math.IsNaN(spec.Burstiness) || math.IsInf(spec.Burstiness, 0) {
		return fmt.Errorf("random workload: --burstiness must be a finite number > 0, got %v", spec.Burstiness)
	}
	return nil
}

// Random builds the requests described by spec. The result is a pure
// function of spec: the same spec gives the same requests.
func Random(spec RandomSpec) ([]Request, error) {
	return RandomContext(context.Background(), spec)
}

// RandomContext is Random that stops, returning ctx's error, once ctx is
// cancelled.
func RandomContext(ctx context.Context, spec RandomSpec) ([]Request, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if spec.Vocab == 0 {
		spec.Vocab = DefaultVocab
	}
	if spec.Burstiness == 0 {
		spec.Burstiness = 1
	}
	span := spec.Vocab - FirstTokenID
	tok := func(r *rand.Rand) int { return FirstTokenID + r.IntN(span) }

	pr := rand.New(rand.NewPCG(spec.Seed, streamPrefix))
	prefix := make([]int, spec.PrefixLen)
	for i := range prefix {
		prefix[i] = tok(pr)
	}

	lr := rand.New(rand.NewPCG(spec.Seed, streamLengths))
	sr := rand.New(rand.NewPCG(spec.Seed, streamSeeds))
	var gaps *distuv.Gamma
	if spec.RequestRate > 0 {
		gaps = &distuv.Gamma{Alpha: spec.Burstiness, Beta: spec.RequestRate * spec.Burstiness,
			Src: rand.NewPCG(spec.Seed, streamArrivals)}
	}
	width := len(strconv.Itoa(spec.Num - 1))
	// Grown as generated, so that a cancelled run never holds the whole
	// slice.
	reqs := make([]Request, 0, min(spec.Num, 1<<16))
	ins := make([]int, 0, min(spec.Num, 1<<16))
	at, total := 0.0, 0
	for i := range spec.Num {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		in := spec.InputLen.Sample(lr)
		out := spec.OutputLen.Sample(lr)
		if total += spec.PrefixLen + in; total > MaxRandomTokens || in > MaxMaxTokens || out > MaxMaxTokens {
			return nil, fmt.Errorf("random workload: more than %d prompt tokens in all, or a length above %d", MaxRandomTokens, MaxMaxTokens)
		}
		ins = append(ins, in)
		r := Request{ID: fmt.Sprintf("r%0*d", width, i), MaxTokens: out, FixedLength: spec.FixedLength,
			Sampling: spec.Sampling.clone()}
		if spec.Text == nil {
			r.PromptTokens = make([]int, 0, spec.PrefixLen+in)
			r.PromptTokens = append(r.PromptTokens, prefix...)
			for range in {
				r.PromptTokens = append(r.PromptTokens, tok(lr))
			}
			r.InputLen = len(r.PromptTokens)
		}
		if spec.RequestSeeds && spec.Sampling.Temperature != nil && *spec.Sampling.Temperature > 0 {
			s := int64(sr.Uint64() >> 1)
			r.Sampling.Seed = &s
		}
		if gaps != nil {
			if i > 0 {
				at += gaps.Rand()
			}
			if at > MaxArrivalOffsetS {
				return nil, fmt.Errorf("random workload: request %d would arrive after %d s (the longest replay): raise --request-rate or lower --num", i, MaxArrivalOffsetS)
			}
			a := at
			r.ArrivalOffsetS = &a
		}
		reqs = append(reqs, r)
	}
	if spec.Text != nil {
		if err := spec.Text.fill(ctx, spec.Seed, spec.PrefixLen, reqs, ins); err != nil {
			return nil, err
		}
	}
	return reqs, nil
}

// clone copies s so requests never share pointers.
func (s Sampling) clone() Sampling {
	var c Sampling
	if s.Temperature != nil {
		v := *s.Temperature
		c.Temperature = &v
	}
	if s.TopP != nil {
		v := *s.TopP
		c.TopP = &v
	}
	if s.TopK != nil {
		v := *s.TopK
		c.TopK = &v
	}
	if s.Seed != nil {
		v := *s.Seed
		c.Seed = &v
	}
	return c
}
