package classify

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/input"
	"github.com/servecmp/servecmp/rules"
)

// kinetoStats measures one rank's attribution: time by method and region,
// the unmapped names, and how often position alone (host context removed)
// agrees with the python-stack placement.
type kinetoStats struct {
	total         int64
	byMethod      [NumMethods]int64
	byRegion      [rules.NumRegions]int64
	unmapped      map[string]int64
	hostPlaced    int64 // time placed by NVTX/graph context
	posAgree      int64 // of which position alone gives the same region
	posPlaced     int64 // of which position alone places at all
	hostPlacedGEM int64
}

func measureKineto(t *testing.T, rk *event.Rank, set *rules.Set, byName []Label) kinetoStats {
	labels := Attribute(rk, set, byName)
	checkInvariants(t, rk, set, byName, labels)
	bare := *rk
	bare.Ranges, bare.Launches, bare.GraphNodes = nil, nil, nil
	pos := Attribute(&bare, set, byName)
	st := kinetoStats{unmapped: map[string]int64{}}
	for i := range rk.Work {
		d := rk.Work[i].Dur()
		st.total += d
		st.byMethod[labels[i].Method] += d
		st.byRegion[labels[i].Region] += d
		if labels[i].Method == Unmapped {
			st.unmapped[rk.Names.Name(rk.Work[i].Name)] += d
		}
		if labels[i].Method == ByNVTX || labels[i].Method == ByGraph {
			st.hostPlaced += d
			if pos[i].Method == ByPosition {
				st.posPlaced += d
				if pos[i].Region == labels[i].Region {
					st.posAgree += d
				}
			}
		}
	}
	return st
}

func (st kinetoStats) String() string {
	var b strings.Builder
	pct := func(x int64) float64 { return 100 * float64(x) / float64(max(st.total, 1)) }
	fmt.Fprintf(&b, "coverage %.1f%% (unmapped %.1f%%); methods:", 100-pct(st.byMethod[Unmapped]), pct(st.byMethod[Unmapped]))
	for m := Method(0); m < NumMethods; m++ {
		fmt.Fprintf(&b, " %s %.1f%%", m, pct(st.byMethod[m]))
	}
	b.WriteString("; regions:")
	for _, r := range rules.Regions {
		fmt.Fprintf(&b, " %s %.1f%%", r, pct(st.byRegion[r]))
	}
	if st.hostPlaced > 0 {
		fmt.Fprintf(&b, "; python-stack placed %.1f%% of time, position alone places %.1f%% of that and agrees on %.1f%% of what it places",
			pct(st.hostPlaced), 100*float64(st.posPlaced)/float64(st.hostPlaced), 100*float64(st.posAgree)/float64(max(st.posPlaced, 1)))
	}
	type kv struct {
		n string
		d int64
	}
	var top []kv
	for n, d := range st.unmapped {
		top = append(top, kv{n, d})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].d > top[j].d })
	for i, x := range top {
		if i == 5 {
			break
		}
		n := x.n
		if len(n) > 90 {
			n = n[:90] + "…"
		}
		fmt.Fprintf(&b, "\n\tunmapped %.2f%% %s", pct(x.d), n)
	}
	return b.String()
}

// TestAttributeKinetoTraces attributes the real PyTorch-profiler traces of
// ../shared/testdata/kineto and reports coverage per trace.
func TestAttributeKinetoTraces(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "testdata", "kineto")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if len(files) == 0 {
		t.Skip("no kineto traces under " + dir)
	}
	set := rules.Default()
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := input.Open(context.Background(), f, event.All)
			if err != nil {
				t.Fatal(err)
			}
			byName := NameLabels(set, c.Names)
			for _, rk := range c.Ranks {
				st := measureKineto(t, rk, set, byName)
				t.Logf("rank %s (%d kernels): %s", rk.Label, len(rk.Work), st)
				if cov := 1 - float64(st.byMethod[Unmapped])/float64(max(st.total, 1)); cov < 0.95 {
					t.Errorf("coverage %.3f < 0.95 after context attribution", cov)
				}
				if st.posPlaced > 0 && float64(st.posAgree) < 0.8*float64(st.posPlaced) {
					t.Errorf("position disagrees with the python stacks on %.1f%% of the time it places",
						100-100*float64(st.posAgree)/float64(st.posPlaced))
				}
			}
		})
	}
}
