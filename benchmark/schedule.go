package benchmark

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/servecmp/servecmp/benchmark/result"
)

// Schedule returns n send offsets in seconds from t=0 for an open-loop run
// at rate requests/s. The first request is at 0 and each later one follows
// the previous by an inter-arrival gap: exactly 1/rate (constant),
// exponential with mean 1/rate (poisson), or gamma with shape burstiness
// and mean 1/rate (gamma; its coefficient of variation is
// 1/sqrt(burstiness), so 1 is Poisson, below 1 burstier, above 1
// smoother). The gaps come from a PCG source seeded with seed, so one seed
// gives one schedule. Offsets are absolute and never rescaled: a request
// sent late does not move the ones after it. A rate of +Inf sends every
// request at 0 (vLLM's --request-rate inf).
func Schedule(n int, rate float64, arrival string, burstiness float64, seed int64) ([]float64, error) {
	if !(rate > 0) {
		return nil, fmt.Errorf("rate must be a positive number of requests/s or inf, got %v", rate)
	}
	out := make([]float64, n)
	if n == 0 {
		return out, nil
	}
	src := rand.NewPCG(uint64(seed), 0x5e_c0_de)
	var gap func() float64
	switch arrival {
	case result.ArrivalConstant:
		gap = func() float64 { return 1 / rate }
	case result.ArrivalPoisson:
		d := distuv.Exponential{Rate: rate, Src: src}
		gap = d.Rand
	case result.ArrivalGamma:
		if !(burstiness > 0) || math.IsInf(burstiness, 0) {
			return nil, fmt.Errorf("burstiness (gamma shape) must be positive, got %v", burstiness)
		}
		d := distuv.Gamma{Alpha: burstiness, Beta: rate * burstiness, Src: src}
		gap = d.Rand
	default:
		return nil, fmt.Errorf("unknown arrival process %q (want constant, poisson or gamma)", arrival)
	}
	if math.IsInf(rate, 1) {
		return out, nil // all at once
	}
	if arrival == result.ArrivalConstant {
		for i := range out {
			out[i] = float64(i) / rate
		}
		return out, nil
	}
	t := 0.0
	for i := 1; i < n; i++ {
		t += gap()
		out[i] = t
	}
	return out, nil
}
