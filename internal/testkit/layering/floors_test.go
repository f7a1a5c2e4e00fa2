package layering

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// floor is a level of the tree: a package may import packages of its own
// floor and of lower ones only (docs/layout.md).
type floor int

const (
	f0Foundations   floor = iota // units, intervals, statistics, safe files, redaction
	f1Models                     // event and result models, the readers that fill them
	f2Engines                    // classification, load generation, the check runner, profiling
	f3Decisions                  // compare: verdicts and the conclusion
	f4Orchestration              // experiment: servecmp run
	f5Output                     // the output tree: tables, encoders, report files
	f6CLI                        // cmd/servecmp and its plumbing
)

var floorNames = []string{"F0 foundations", "F1 models and readers", "F2 engines and analysis",
	"F3 decisions", "F4 orchestration", "F5 output", "F6 CLI"}

func (f floor) String() string { return floorNames[f] }

// floors places every package: a path names the package and the ones
// below it; the longest match wins.
var floors = map[string]floor{
	"internal/stats":      f0Foundations,
	"internal/interval":   f0Foundations,
	"internal/atomicfile": f0Foundations,
	"internal/infile":     f0Foundations,
	"internal/redact":     f0Foundations,
	"internal/interrupt":  f0Foundations,
	"internal/sqliteuri":  f0Foundations,
	"internal/httppolicy": f0Foundations,
	"internal/budget":     f0Foundations,
	"internal/proctree":   f0Foundations,

	"event":              f1Models,
	"rules":              f1Models,
	"tokenizer":          f1Models, // and tokenizer/chat
	"benchmark/workload": f1Models,
	"benchmark/result":   f1Models,
	"benchmark/engine":   f1Models,
	"check/checkreport":  f1Models,
	"nsys":               f1Models, // and nsys/internal/fastscan, nsys/internal/pagescan
	"kineto":             f1Models,
	"input":              f1Models,

	"classify":                f2Engines,
	"analysis":                f2Engines,
	"benchmark/servermetrics": f2Engines,
	"benchmark/gputelemetry":  f2Engines,
	"benchmark/promscrape":    f2Engines,
	"benchmark/client":        f2Engines,
	"benchmark":               f2Engines, // the load generator
	"check":                   f2Engines, // the runner
	"profile":                 f2Engines,
	"servesim":                f2Engines,

	"compare": f3Decisions,

	"experiment": f4Orchestration,

	"output": f5Output,

	"cmd/servecmp": f6CLI, // and cmd/servecmp/internal/...
}

// fences hold code that is on no floor: tools (commands of their own,
// run by make or by hand) and test kits (imported by tests only). A
// fenced package may import any floor below the CLI; no package on a
// floor may import a fenced one.
var fences = []string{"internal/cmd", "internal/testkit"}

// placeOf returns pkg's floor, or fenced when it is a tool or test kit,
// or ok false when no entry places it.
func placeOf(pkg string) (f floor, fenced, ok bool) {
	if under(pkg, fences) {
		return 0, true, true
	}
	best := ""
	for p, fl := range floors {
		if under(pkg, []string{p}) && len(p) > len(best) {
			best, f = p, fl
		}
	}
	if best == "" {
		return 0, false, false
	}
	// Only foundations live directly in internal/: a new package there
	// must be placed by its own entry.
	if strings.HasPrefix(pkg, "internal/") && best != pkg && f == f0Foundations {
		return 0, false, false
	}
	return f, false, true
}

// upward is one import that runs up a floor, or into a fence.
type upward struct {
	from, to string
	why      string
}

// violations returns the imports of ims (package → its imports, one
// entry per importing file) that run up a floor or from a floor into a
// fence, once per pair of packages, and the packages no entry places.
func violations(ims map[string][]string) (up []upward, unplaced []string) {
	for pkg, list := range ims {
		list = slices.Clone(list)
		slices.Sort(list)
		list = slices.Compact(list)
		from, fromFenced, ok := placeOf(pkg)
		if !ok {
			unplaced = append(unplaced, pkg)
			continue
		}
		for _, im := range list {
			local, isLocal := strings.CutPrefix(im, module+"/")
			if !isLocal {
				continue
			}
			to, toFenced, ok := placeOf(local)
			switch {
			case !ok:
				continue // reported as unplaced on its own
			case toFenced && !fromFenced:
				up = append(up, upward{pkg, local, fmt.Sprintf("%s imports a tool or test kit", from)})
			case !toFenced && to == f6CLI && !under(pkg, []string{"cmd/servecmp"}):
				up = append(up, upward{pkg, local, "nothing outside cmd/servecmp imports the CLI"})
			case !toFenced && !fromFenced && to > from:
				up = append(up, upward{pkg, local, fmt.Sprintf("%s imports %s", from, to)})
			}
		}
	}
	sort.Slice(up, func(i, j int) bool { return up[i].from+up[i].to < up[j].from+up[j].to })
	sort.Strings(unplaced)
	return up, unplaced
}

// TestFloors fails on every import that runs up a floor (or from a floor
// into a fence) and on every package without a place, and prints how
// many imports run up.
func TestFloors(t *testing.T) {
	up, unplaced := violations(imports(t, root(t)))
	t.Logf("imports that run up a floor: %d (goal 0)", len(up))
	for _, u := range up {
		t.Errorf("%s imports %s: %s; an import may only point to its own floor or a lower one (docs/layout.md)", u.from, u.to, u.why)
	}
	for _, p := range unplaced {
		t.Errorf("package %s has no floor: give it one in floors (and docs/layout.md); only foundations live directly in internal/", p)
	}
}

// TestViolationsFinds checks the rule on a small graph.
func TestViolationsFinds(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	ims := map[string][]string{
		"compare":                    {m("benchmark/result"), m("output/table"), "fmt", m("output/table")},
		"output/present":             {m("compare"), m("cmd/servecmp/internal/cli")},
		"benchmark/result":           {m("internal/stats"), m("internal/testkit/golden")},
		"internal/testkit/fixture":   {m("compare")},
		"internal/cmd/benchtool":     {m("benchmark"), m("internal/testkit/nsystest")},
		"internal/newthing":          nil,
		"cmd/servecmp":               {m("cmd/servecmp/internal/cli"), m("output/emit")},
		"cmd/servecmp/internal/cli":  {m("output/emit")},
		"nsys/internal/fastscan":     {m("internal/sqliteuri")},
		"tokenizer/chat":             {m("tokenizer")},
		"internal/stats":             {m("event")},
		"benchmark/servermetrics":    {m("benchmark/result")},
		"internal/testkit/layering":  nil,
		"check/checkreport":          {m("check")},
		"experiment":                 {m("compare"), m("output/emit")},
		"benchmark/client":           {m("benchmark")},
		"output/emit":                {m("experiment")},
		"internal/interval/internal": nil,
	}
	up, unplaced := violations(ims)
	var got []string
	for _, u := range up {
		got = append(got, u.from+" -> "+u.to)
	}
	want := []string{
		"benchmark/result -> internal/testkit/golden",
		"check/checkreport -> check",
		"compare -> output/table",
		"experiment -> output/emit",
		"internal/stats -> event",
		"output/present -> cmd/servecmp/internal/cli",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations = %q, want %q", got, want)
	}
	if wantU := []string{"internal/interval/internal", "internal/newthing"}; !slices.Equal(unplaced, wantU) {
		t.Errorf("unplaced = %q, want %q", unplaced, wantU)
	}
}

// compareMustNotLink are the packages compare must not link: it reads
// results and check reports through their models (F1) and has no use
// for the machinery that makes them.
var compareMustNotLink = []string{
	"tokenizer", "tokenizer/chat", "check", "benchmark/client", "benchmark",
}

// deps returns every module package pkg links, by the imports of
// non-test files of every build (a superset of any one build's).
func deps(ims map[string][]string, pkg string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, im := range ims[p] {
			local, ok := strings.CutPrefix(im, module+"/")
			if ok && !seen[local] {
				seen[local] = true
				walk(local)
			}
		}
	}
	walk(pkg)
	return seen
}

// TestCompareLinks fails when compare links one of compareMustNotLink.
func TestCompareLinks(t *testing.T) {
	d := deps(imports(t, root(t)), "compare")
	if len(d) == 0 {
		t.Fatal("compare links no module package: the walk is broken")
	}
	for _, p := range compareMustNotLink {
		if d[p] {
			t.Errorf("compare links %s: it must read the models of F1 only", p)
		}
	}
}
