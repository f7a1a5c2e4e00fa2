package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Step kinds, in plan order.
const (
	KindCheck   = "check"
	KindSweep   = "sweep"
	KindRun     = "run"
	KindProfile = "profile"
	KindAnalyze = "analyze"
	KindReport  = "report"
)

// keyVersion salts every key, so that a change in what a step means
// invalidates the steps stored by older versions.
const keyVersion = "servecmp.step/1"

// Step is one unit of work of an experiment, with its own folder in the
// output directory.
type Step struct {
	Name  string `json:"name"` // "check", "sweep-a", "run-b-2", "report", ...
	Kind  string `json:"kind"`
	Side  string `json:"side,omitempty"`  // "a" or "b" for per-engine steps
	Index int    `json:"index,omitempty"` // run number from 1, for runs
	// Key is the hex SHA-256 of what the step depends on (see the package
	// doc); Deps names the earlier steps whose keys enter it.
	Key  string   `json:"key"`
	Deps []string `json:"deps,omitempty"`
}

// Plan lists the steps of e in the order they run. workloadHash
// identifies the request population (the SHA-256 of the workload file, or
// of the materialised random workload); it enters every measuring step's
// key.
func Plan(e *Experiment, workloadHash string) []Step {
	b := &planner{e: e, wl: workloadHash, keys: map[string]string{}}
	b.add(Step{Name: KindCheck, Kind: KindCheck}, nil, struct {
		A, B  engineKey
		Check Preflight
	}{b.engine("a"), b.engine("b"), e.Check})
	if e.Sweep != nil {
		for _, side := range []string{"a", "b"} {
			b.add(Step{Name: "sweep-" + side, Kind: KindSweep, Side: side}, nil, struct {
				Engine engineKey
				Sweep  Sweep
			}{b.engine(side), *e.Sweep})
		}
	}
	for _, r := range runOrder(e.Runs) {
		b.add(Step{Name: fmt.Sprintf("run-%s-%d", r.side, r.i), Kind: KindRun, Side: r.side, Index: r.i}, nil, struct {
			Engine engineKey
			Runs   Runs
			Index  int
		}{b.engine(r.side), runsKey(e.Runs), r.i})
	}
	if e.Profile != nil {
		for _, side := range []string{"a", "b"} {
			b.add(Step{Name: "profile-" + side, Kind: KindProfile, Side: side}, nil, struct {
				Engine   engineKey
				Load     Runs
				Profile  Profile
				TraceDir string
			}{b.engine(side), runsKey(e.Runs), *e.Profile, e.Side(side).TraceDir})
		}
		for _, side := range []string{"a", "b"} {
			b.add(Step{Name: "analyze-" + side, Kind: KindAnalyze, Side: side}, []string{"profile-" + side}, nil)
		}
	}
	all := make([]string, len(b.steps))
	for i, s := range b.steps {
		all[i] = s.Name
	}
	b.add(Step{Name: KindReport, Kind: KindReport}, all, struct {
		Intentional []string
		SLO         string
		Alpha       float64
		OnMismatch  string
		Order       string
	}{e.Intentional, e.SLO.String(), e.Alpha, e.Check.OnMismatch, e.Runs.Order})
	return b.steps
}

// planner accumulates steps and their keys.
type planner struct {
	e     *Experiment
	wl    string
	keys  map[string]string
	steps []Step
}

// add appends s with the key of parts, the workload hash and the keys of
// deps (which must already be planned).
func (b *planner) add(s Step, deps []string, parts any) {
	depKeys := make([]string, len(deps))
	for i, d := range deps {
		depKeys[i] = d + "=" + b.keys[d]
	}
	s.Deps = deps
	s.Key = hashJSON(struct {
		Version, Step, Workload string
		Parts                   any
		Deps                    []string
	}{keyVersion, s.Name, b.wl, parts, depKeys})
	b.keys[s.Name] = s.Key
	b.steps = append(b.steps, s)
}

// engineKey is the part of an engine that a measurement depends on: all of
// it but the launch's timing (readiness timeout, grace).
type engineKey struct {
	URL, Model, Engine string
	Manifest, Extra    map[string]string
	Command            []string
	ReadyURL           string
	// MetricsURL is left out when unset, so that the keys of files
	// without metrics_url stay those of earlier versions.
	MetricsURL string `json:",omitempty"`
}

func (b *planner) engine(side string) engineKey {
	e := b.e.Side(side)
	k := engineKey{URL: e.URL, Model: e.Model, Engine: e.Engine, Manifest: e.Manifest, Extra: e.Extra, MetricsURL: e.MetricsURL}
	if e.Launch != nil {
		k.Command, k.ReadyURL = e.Launch.Command, e.Launch.ReadyURL
	}
	return k
}

// runsKey is the runs block without the count, so that raising the count
// keeps the runs done.
func runsKey(r Runs) Runs {
	r.Count = 0
	return r
}

type sideRun struct {
	side string
	i    int
}

// runOrder lists the measured runs: A1 B1 B2 A2 A3 B3 … (interleaved,
// counterbalanced: every second pair starts with B, so that a drift over
// time favours neither side) or A1 A2 ... B1 B2 ... (blocked).
func runOrder(r Runs) []sideRun {
	var out []sideRun
	if r.Order == OrderBlocked {
		for _, side := range []string{"a", "b"} {
			for i := 1; i <= r.Count; i++ {
				out = append(out, sideRun{side, i})
			}
		}
		return out
	}
	for i := 1; i <= r.Count; i++ {
		if i%2 == 0 {
			out = append(out, sideRun{"b", i}, sideRun{"a", i})
		} else {
			out = append(out, sideRun{"a", i}, sideRun{"b", i})
		}
	}
	return out
}

// RunSides is the side ("a" or "b") of each measured run of r, in the
// order run makes them.
func RunSides(r Runs) []string {
	var out []string
	for _, s := range runOrder(r) {
		out = append(out, s.side)
	}
	return out
}

// hashJSON is the hex SHA-256 of v's JSON encoding (map keys sorted, so
// the encoding is canonical for the types used here).
func hashJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("experiment: key parts do not encode: %v", err))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
