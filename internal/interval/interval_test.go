package interval

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestUnion(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []Interval
		want []Interval
		len  int64
	}{
		{"none", nil, nil, 0},
		{"one", []Interval{{1, 4}}, []Interval{{1, 4}}, 3},
		{"zero length", []Interval{{5, 5}}, nil, 0},
		{"inverted", []Interval{{6, 2}}, nil, 0},
		{"touching", []Interval{{0, 10}, {10, 20}}, []Interval{{0, 20}}, 20},
		{"overlapping", []Interval{{0, 10}, {5, 20}}, []Interval{{0, 20}}, 20},
		{"disjoint unsorted", []Interval{{30, 40}, {0, 10}}, []Interval{{0, 10}, {30, 40}}, 20},
		{"nested", []Interval{{0, 100}, {10, 20}, {30, 40}}, []Interval{{0, 100}}, 100},
		{"zero length inside gap", []Interval{{0, 10}, {15, 15}, {20, 30}}, []Interval{{0, 10}, {20, 30}}, 20},
		{"same start", []Interval{{0, 5}, {0, 9}, {0, 2}}, []Interval{{0, 9}}, 9},
		{"negative times", []Interval{{-10, -5}, {-6, 0}}, []Interval{{-10, 0}}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Len(tc.in); got != tc.len {
				t.Errorf("Len = %d, want %d", got, tc.len)
			}
			var m Merger
			c := slices.Clone(tc.in)
			slices.SortFunc(c, func(a, b Interval) int { return int(a.Start - b.Start) })
			for _, iv := range c {
				m.Add(iv)
			}
			if m.Len() != tc.len {
				t.Errorf("Merger.Len = %d, want %d", m.Len(), tc.len)
			}
			got := Union(slices.Clone(tc.in))
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Union = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClip(t *testing.T) {
	w := Interval{10, 20}
	for _, tc := range []struct {
		in   Interval
		want Interval
		ok   bool
	}{
		{Interval{0, 5}, Interval{}, false},
		{Interval{0, 10}, Interval{}, false}, // touches the start only
		{Interval{5, 15}, Interval{10, 15}, true},
		{Interval{12, 18}, Interval{12, 18}, true},
		{Interval{15, 25}, Interval{15, 20}, true},
		{Interval{0, 30}, Interval{10, 20}, true},
		{Interval{20, 30}, Interval{}, false},
		{Interval{12, 12}, Interval{}, false},
	} {
		got, ok := Clip(tc.in, w)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("Clip(%v) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzUnion(f *testing.F) {
	f.Add([]byte{0, 10, 5, 20, 30, 31})
	f.Add([]byte{1, 1, 2, 2})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var ivs []Interval
		for i := 0; i+1 < len(b); i += 2 {
			s := int64(b[i])
			ivs = append(ivs, Interval{s, s + int64(b[i+1]%64)})
		}
		u := Len(ivs)
		if s := Sum(ivs); u > s {
			t.Fatalf("union %d > sum %d", u, s)
		}
		for _, iv := range ivs {
			if iv.Len() > u {
				t.Fatalf("union %d < interval %v", u, iv)
			}
		}
		// Order does not matter.
		r := slices.Clone(ivs)
		rand.Shuffle(len(r), func(i, j int) { r[i], r[j] = r[j], r[i] })
		if got := Len(r); got != u {
			t.Fatalf("shuffled union %d != %d", got, u)
		}
		// Idempotent: a second union changes nothing.
		once := Union(slices.Clone(ivs))
		twice := Union(slices.Clone(once))
		if !slices.Equal(once, twice) {
			t.Fatalf("union not idempotent: %v then %v", once, twice)
		}
		for i := 1; i < len(once); i++ {
			if once[i].Start <= once[i-1].End {
				t.Fatalf("result not disjoint: %v", once)
			}
		}
		// Merger agrees with Union.
		var m Merger
		for _, iv := range once {
			m.Add(iv)
		}
		if m.Len() != u {
			t.Fatalf("merger %d != union %d", m.Len(), u)
		}
	})
}

func BenchmarkUnion(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	ivs := make([]Interval, 1_000_000)
	for i := range ivs {
		s := r.Int64N(1e9)
		ivs[i] = Interval{s, s + r.Int64N(1e4)}
	}
	c := make([]Interval, len(ivs))
	b.ResetTimer()
	for b.Loop() {
		copy(c, ivs)
		Union(c)
	}
}

func TestClipWork(t *testing.T) {
	win := Interval{10, 20}
	for _, tc := range []struct {
		start, end int64
		want       Interval
		in         bool
	}{
		{12, 15, Interval{12, 15}, true}, // inside
		{5, 12, Interval{10, 12}, true},  // straddles the start
		{18, 25, Interval{18, 20}, true}, // straddles the end
		{5, 25, Interval{10, 20}, true},  // covers the window
		{0, 10, Interval{}, false},       // ends at the window start
		{20, 30, Interval{}, false},      // starts at the window end
		{15, 15, Interval{15, 15}, true}, // zero length inside: counts, no time
		{10, 10, Interval{10, 10}, true}, // zero length at the start
		{20, 20, Interval{}, false},      // zero length at the end: outside
		{5, 5, Interval{}, false},
	} {
		got, in := ClipWork(tc.start, tc.end, win)
		if in != tc.in || (in && got != tc.want) {
			t.Errorf("ClipWork(%d, %d) = %v, %v; want %v, %v", tc.start, tc.end, got, in, tc.want, tc.in)
		}
	}
}
