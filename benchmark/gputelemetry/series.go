package gputelemetry

import (
	"math"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
)

// powerSeries resamples the GPUs' summed power onto an even grid over the
// whole recording: at most result.MaxPowerPoints points, no finer than half the
// scrape interval. A GPU adds to a point only between its first and last
// power sample.
func powerSeries(gs []*gpuSeries, every float64) []result.PowerSample {
	var cols [][]pt
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range gs {
		if c := column(g.rows, fPower); len(c) > 0 {
			cols = append(cols, c)
			lo, hi = min(lo, c[0].t), max(hi, c[len(c)-1].t)
		}
	}
	if len(cols) == 0 {
		return []result.PowerSample{}
	}
	n := result.MaxPowerPoints
	if every > 0 {
		n = min(n, int((hi-lo)/(every/2))+1)
	}
	n = max(n, 1)
	out := make([]result.PowerSample, 0, n)
	for j := range n {
		t := lo
		if n > 1 {
			t = lo + (hi-lo)*float64(j)/float64(n-1)
		}
		sum := 0.0
		for _, c := range cols {
			if t >= c[0].t && t <= c[len(c)-1].t {
				sum += interp(c, t)
			}
		}
		out = append(out, result.PowerSample{t, sum})
	}
	return out
}

// contractOf reads the resource contract off the GPUs' labels.
func contractOf(gpus []result.GPUStats) result.GPUContract {
	var models, drivers, nodes []string
	for _, g := range gpus {
		models = appendNew(models, g.Model)
		drivers = appendNew(drivers, g.Driver)
		nodes = appendNew(nodes, g.Node)
	}
	return result.GPUContract{
		GPUType:       strings.Join(models, " + "),
		GPUCount:      len(gpus),
		DriverVersion: strings.Join(drivers, " + "),
		Nodes:         len(nodes),
	}
}

// appendNew adds s to a sorted set, ignoring "".
func appendNew(set []string, s string) []string {
	if s == "" {
		return set
	}
	i, found := slices.BinarySearch(set, s)
	if found {
		return set
	}
	return slices.Insert(set, i, s)
}
