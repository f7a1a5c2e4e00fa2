package calibrate

import "fmt"

// The scenarios of the calibration tables. Every world has Requests
// requests per run sent at concurrency 4; spreads are the run-to-run
// standard deviation of a run's level.

// Requests is the number of measured requests of every simulated run.
const Requests = 400

// Order names an order of runs and builds it for n runs per side.
type Order struct {
	Name  string
	Build func(n int) []string
}

// Orders of the tables: interleaved as servecmp run makes them, and
// blocked.
var (
	OrderInterleaved = Order{"interleaved", Interleaved}
	OrderBlocked     = Order{"blocked", Blocked}
)

func world(runs int, o Order, spread float64) World {
	return World{Runs: runs, Order: o.Build(runs), Spread: spread, Requests: Requests, Concurrency: 4}
}

// AAScenarios are the comparisons of two identical systems: 3, 5 and 10
// runs per side, interleaved and blocked, 2% and 20% spread; then heavy
// tails, a 10% drift, and 1 and 2 runs per side (for the intervals).
func AAScenarios(n int) []Scenario {
	var out []Scenario
	for _, runs := range []int{3, 5, 10} {
		for _, o := range []Order{OrderInterleaved, OrderBlocked} {
			for _, sp := range []float64{0.02, 0.20} {
				out = append(out, Scenario{Name: fmt.Sprintf("A/A %d runs %s %.0f%%", runs, o.Name, 100*sp), World: world(runs, o, sp), Comparisons: n})
			}
		}
	}
	for _, o := range []Order{OrderInterleaved, OrderBlocked} {
		w := world(3, o, 0.20)
		w.HeavyTails = true
		out = append(out, Scenario{Name: fmt.Sprintf("A/A 3 runs %s 20%% heavy tails", o.Name), World: w, Comparisons: n})
	}
	for _, o := range []Order{OrderInterleaved, OrderBlocked} {
		w := world(3, o, 0.02)
		w.Drift = 0.10
		out = append(out, Scenario{Name: fmt.Sprintf("A/A 3 runs %s 2%% drift 10%%", o.Name), World: w, Comparisons: n})
	}
	for _, runs := range []int{1, 2} {
		out = append(out, Scenario{Name: fmt.Sprintf("A/A %d runs interleaved 20%%", runs), World: world(runs, OrderInterleaved, 0.20), Comparisons: n})
	}
	return out
}

// ABScenarios are comparisons where B's TTFT is 5%, 10% or 20% longer and
// nothing else differs, for 3, 5 and 10 interleaved runs per side with 2%
// and 20% spread, and 3 blocked runs.
func ABScenarios(n int) []Scenario {
	var out []Scenario
	for _, sp := range []float64{0.02, 0.20} {
		for _, runs := range []int{3, 5, 10} {
			for _, d := range []float64{0.05, 0.10, 0.20} {
				w := world(runs, OrderInterleaved, sp)
				w.TTFTEffect = d
				out = append(out, Scenario{Name: fmt.Sprintf("A/B TTFT +%.0f%% %d runs interleaved %.0f%%", 100*d, runs, 100*sp), World: w, Comparisons: n})
			}
		}
		w := world(3, OrderBlocked, sp)
		w.TTFTEffect = 0.20
		out = append(out, Scenario{Name: fmt.Sprintf("A/B TTFT +20%% 3 runs blocked %.0f%%", 100*sp), World: w, Comparisons: n})
	}
	return out
}
