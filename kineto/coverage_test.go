package kineto

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/rules"
)

// coverage is the name-only classification of a rank's work by time.
type coverage struct {
	total, matched, definite int64
	specific                 int64 // matched by a rule other than the generic elementwise ones
	byRegion                 [rules.NumRegions]int64
	unmapped                 map[string]int64
}

func nameCoverage(r *event.Rank, set *rules.Set) coverage {
	cv := coverage{unmapped: map[string]int64{}}
	memo := map[uint32]int{}
	for _, w := range r.Work {
		d := w.Dur()
		cv.total += d
		i, ok := memo[w.Name]
		if !ok {
			i = set.MatchName(r.Names.Name(w.Name))
			memo[w.Name] = i
		}
		if i < 0 {
			cv.unmapped[r.Names.Name(w.Name)] += d
			cv.byRegion[rules.Other] += d
			continue
		}
		cv.matched += d
		rule := set.Rules[i]
		cv.byRegion[rule.Region] += d
		if !rule.Class.Ambiguous() {
			cv.definite += d
		}
		if rule.Class != rules.Elementwise {
			cv.specific += d
		}
	}
	return cv
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// TestNameCoverage reports, per real trace, the share of device time whose
// name the default rules place, and holds it to 80 %.
func TestNameCoverage(t *testing.T) {
	set := rules.Default()
	nv := defaultFile(t, "nvidia.yaml")
	for _, tr := range realTraces(t) {
		c := readFile(t, tr.path, event.Options{})
		for _, r := range c.Ranks {
			cv := nameCoverage(r, set)
			nvOnly := nameCoverage(r, nv)
			var regions []string
			for _, g := range rules.Regions {
				regions = append(regions, fmt.Sprintf("%s %.1f%%", g, pct(cv.byRegion[g], cv.total)))
			}
			t.Logf("%s device %d: matched %.1f%% of %d ns (not generic elementwise %.1f%%, definite region %.1f%%; nvidia.yaml alone matches %.1f%%); %s",
				tr.name, r.Device, pct(cv.matched, cv.total), cv.total, pct(cv.specific, cv.total), pct(cv.definite, cv.total), pct(nvOnly.matched, nvOnly.total), strings.Join(regions, ", "))
			type nt struct {
				n string
				d int64
			}
			var un []nt
			for n, d := range cv.unmapped {
				un = append(un, nt{n, d})
			}
			sort.Slice(un, func(i, j int) bool { return un[i].d > un[j].d })
			for i, u := range un {
				if i == 8 {
					break
				}
				n := u.n
				if len(n) > 150 {
					n = n[:150] + "…"
				}
				t.Logf("    unmapped %5.2f%% %s", pct(u.d, cv.total), n)
			}
			if pct(cv.matched, cv.total) < 80 {
				t.Errorf("%s device %d: default rules place only %.1f%% of device time by name", tr.name, r.Device, pct(cv.matched, cv.total))
			}
		}
	}
}
