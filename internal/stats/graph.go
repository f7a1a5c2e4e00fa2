package stats

import "math"

// Graph is a graphical multiple test procedure (Bretz, Maurer, Brannath
// and Posch, 2009): a sequentially rejective Bonferroni procedure in which
// each hypothesis holds a share of alpha and, once rejected, passes its
// share on along its edges. It is a shortcut of a closed test of weighted
// Bonferroni tests, so it keeps the family-wise error rate at alpha under
// any correlation of the tests; Holm's procedure is the graph with equal
// weights and equal edges between all hypotheses. A graph lets the share
// of alpha go first to the hypotheses most likely to carry a difference
// (a median before its tail) instead of splitting it over all of them.
type Graph struct {
	// Weights are the initial shares of alpha, summing to at most 1.
	Weights []float64
	// Edges[i][j] is the part of i's share that goes to j when i is
	// rejected; each row sums to at most 1 and Edges[i][i] is 0.
	Edges [][]float64
}

// Adjusted returns the adjusted p-values of p under the graph: the
// smallest level at which the procedure rejects each hypothesis. A NaN
// p-value counts as 1.
func (g Graph) Adjusted(p []float64) []float64 {
	m := len(p)
	w := append([]float64(nil), g.Weights...)
	e := make([][]float64, m)
	for i := range e {
		e[i] = append([]float64(nil), g.Edges[i]...)
	}
	open := make([]bool, m)
	for i := range open {
		open[i] = true
	}
	out := make([]float64, m)
	running := 0.0
	for range m {
		j, q := -1, math.Inf(1)
		for i := range m {
			pi := p[i]
			if math.IsNaN(pi) {
				pi = 1
			}
			if open[i] && w[i] > 0 && pi/w[i] < q {
				j, q = i, pi/w[i]
			}
		}
		if j < 0 { // the shares left are 0: nothing more can be rejected
			break
		}
		running = math.Max(running, math.Min(1, q))
		out[j] = running
		open[j] = false
		w, e = g.remove(j, w, e, open)
	}
	for i := range m {
		if open[i] {
			out[i] = 1
		}
	}
	return out
}

// remove passes j's share on and reroutes the edges through j
// (Algorithm 1 of Bretz et al.).
func (Graph) remove(j int, w []float64, e [][]float64, open []bool) ([]float64, [][]float64) {
	m := len(w)
	nw := append([]float64(nil), w...)
	ne := make([][]float64, m)
	for l := range m {
		ne[l] = make([]float64, m)
	}
	for l := range m {
		if !open[l] {
			continue
		}
		nw[l] = w[l] + w[j]*e[j][l]
		for k := range m {
			if !open[k] || k == l {
				continue
			}
			if d := 1 - e[l][j]*e[j][l]; d > 0 {
				ne[l][k] = (e[l][k] + e[l][j]*e[j][k]) / d
			}
		}
	}
	nw[j] = 0
	return nw, ne
}
