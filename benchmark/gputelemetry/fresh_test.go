package gputelemetry

import (
	"strings"
	"testing"
)

// feedAs records body as node i's answer at time at, taken as how.
func feedAs(t *testing.T, s *Scraper, i int, at float64, how mark, body string) {
	t.Helper()
	p, err := parsePage([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.nodes[i].scrapes++
	s.record(s.nodes[i], p, at, how)
	s.mu.Unlock()
}

// TestFreshness: an exporter whose counter moves across every edge pair
// has its readings' age bounded by the pair's gap, which shrinks the
// window's uncertainty; one whose counter stays put across a pair (a
// cached reading) keeps the gap since the sample before as the age.
func TestFreshness(t *testing.T) {
	const watts = 300.0
	build := func(cached bool) *Scraper {
		s := newFed(t)
		at := func(x float64) string { // the reading at x, or at the last whole second when cached
			r := x
			if cached {
				r = float64(int(x))
			}
			return one(map[string]float64{power: watts, energy: 1e9 + watts*r*1000})
		}
		for _, x := range []float64{0, 1, 2} {
			feedAs(t, s, 0, x, periodic, at(x))
		}
		feedAs(t, s, 0, 2.48, edge, at(2.48))
		feedAs(t, s, 0, 2.50, edgePair, at(2.50))
		for _, x := range []float64{3, 4, 5, 6, 7} {
			feedAs(t, s, 0, x, periodic, at(x))
		}
		feedAs(t, s, 0, 7.52, edge, at(7.52))
		feedAs(t, s, 0, 7.54, edgePair, at(7.54))
		feedAs(t, s, 0, 8, periodic, at(8))
		return s
	}
	fresh := build(false)
	if f := freshness(fresh.nodes[0].gpus[uuidOf("a", 0)].rows); f < 0.019 || f > 0.021 {
		t.Errorf("freshness %g, want the pairs' gap 0.02", f)
	}
	rf := fresh.Result(2.51, 7.51)
	g := rf.GPUs[0]
	if !near(*g.EnergyJ, watts*5, 1e-9) || g.UncertaintyJ > 0.02*watts*5 {
		t.Errorf("fresh: %.2f J ± %.2f, want %.0f J within 2%%", *g.EnergyJ, g.UncertaintyJ, watts*5)
	}
	stale := build(true)
	if f := freshness(stale.nodes[0].gpus[uuidOf("a", 0)].rows); f != 0 {
		t.Errorf("a cached reading across a pair: freshness %g, want 0 (unknown)", f)
	}
	rs := stale.Result(2.51, 7.51)
	if gs := rs.GPUs[0]; gs.UncertaintyJ < 5*g.UncertaintyJ {
		t.Errorf("stale bound ± %.1f J not wider than the fresh one ± %.1f J", gs.UncertaintyJ, g.UncertaintyJ)
	}
	single := newFed(t)
	feedAs(t, single, 0, 0, edge, pageOf(fakeGPU{idx: 0, uuid: uuidOf("a", 0), host: "node-a", vals: map[string]float64{energy: 1e9}}))
	feedAs(t, single, 0, 0.02, edgePair, pageOf(fakeGPU{idx: 0, uuid: uuidOf("a", 0), host: "node-a", vals: map[string]float64{energy: 1e9 + 6000}}))
	if f := freshness(single.nodes[0].gpus[uuidOf("a", 0)].rows); f != 0 {
		t.Errorf("one pair: freshness %g, want 0 (at least %d pairs)", f, minFreshPairs)
	}
}

// TestUUIDSelectionAcrossNodes: one selection of UUIDs serves every
// exporter; a UUID that one node reports is not missing on the other,
// while one that no node reports is.
func TestUUIDSelectionAcrossNodes(t *testing.T) {
	sel := []string{uuidOf("a", 1), uuidOf("b", 0)}
	s := newFed(t, Endpoint{URL: "http://a:9400/metrics", GPUs: sel}, Endpoint{URL: "http://b:9400/metrics", GPUs: sel})
	page := func(host string) string {
		var gs []fakeGPU
		for i := range 2 {
			gs = append(gs, fakeGPU{idx: i, uuid: uuidOf(host, i), host: host, vals: map[string]float64{power: 100}})
		}
		return pageOf(gs...)
	}
	for _, x := range []float64{0, 1, 2} {
		feed(t, s, 0, x, page("a"))
		feed(t, s, 1, x, page("b"))
	}
	res := s.Result(0.5, 1.5)
	if len(res.GPUs) != 2 || res.GPUs[0].UUID != uuidOf("a", 1) || res.GPUs[1].UUID != uuidOf("b", 0) || res.Contract.Partial || !res.Complete {
		t.Errorf("GPUs %+v, contract %+v, warnings %q", res.GPUs, res.Contract, res.Warnings)
	}
	if w := strings.Join(res.Warnings, "\n"); strings.Contains(w, "not found") {
		t.Errorf("warnings %q", res.Warnings)
	}
	s = newFed(t, Endpoint{URL: "http://a:9400/metrics", GPUs: []string{uuidOf("c", 0)}}, Endpoint{URL: "http://b:9400/metrics", GPUs: []string{uuidOf("c", 0)}})
	feed(t, s, 0, 0, page("a"))
	feed(t, s, 1, 0, page("b"))
	if res := s.Result(0, 1); !res.Contract.Partial || !strings.Contains(strings.Join(res.Warnings, "\n"), uuidOf("c", 0)+" not found") {
		t.Errorf("a UUID nobody reports: contract %+v, warnings %q", res.Contract, res.Warnings)
	}
}

// TestEndpoints: the user's form of the exporters: URLs with one
// selection for every node, "none" alone, a selection without a URL an
// error.
func TestEndpoints(t *testing.T) {
	eps, err := Endpoints([]string{"http://a:9400/metrics", "http://b:9400/metrics"}, "0,GPU-0a1b")
	if err != nil || len(eps) != 2 || len(eps[1].GPUs) != 2 || eps[1].GPUs[1] != "GPU-0a1b" {
		t.Errorf("two nodes: %+v, %v", eps, err)
	}
	for _, urls := range [][]string{nil, {"none"}, {" none "}} {
		if eps, err := Endpoints(urls, ""); eps != nil || err != nil {
			t.Errorf("%q: %+v, %v", urls, eps, err)
		}
	}
	for _, bad := range []struct {
		urls []string
		gpus string
		want string
	}{
		{[]string{"none", "http://a/metrics"}, "", "give it alone"},
		{nil, "0", "needs a GPU exporter URL"},
		{[]string{"ftp://a/metrics"}, "", "not an http(s) URL"},
		{[]string{"http://a/metrics", "http://a/metrics"}, "", "given twice"},
		{[]string{"http://a/metrics"}, "zero", "neither an index nor a GPU UUID"},
	} {
		if _, err := Endpoints(bad.urls, bad.gpus); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q %q: %v, want %q", bad.urls, bad.gpus, err, bad.want)
		}
	}
}
