package stats

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// starts turns an order such as "ABAB" into start times a minute apart.
func starts(order string) (a, b []time.Time) {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for i, c := range order {
		at := t0.Add(time.Duration(i) * time.Minute)
		if c == 'A' {
			a = append(a, at)
		} else {
			b = append(b, at)
		}
	}
	return a, b
}

func TestDetectDesign(t *testing.T) {
	tests := []struct {
		order          string
		want           Layout
		pairs          [][2]int
		balanced, pair bool
		note           string
	}{
		{"ABBAAB", Interleaved, [][2]int{{0, 0}, {1, 1}, {2, 2}}, true, false, "fewer than 6 pairs"},
		{"ABBAABBAABBA", Interleaved, [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, true, true, "paired analysis"},
		{"ABBA", Interleaved, [][2]int{{0, 0}, {1, 1}}, true, false, "2 pairs, counterbalanced"},
		{"ABABAB", Interleaved, [][2]int{{0, 0}, {1, 1}, {2, 2}}, false, false, "A started 3 of them"},
		{"BABABABABABA", Interleaved, [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, false, false, "B started 6"},
		{"AAABBB", Blocked, nil, false, false, "every A run started first"},
		{"BBAA", Blocked, nil, false, false, "every B run started first"},
		{"AB", Blocked, nil, false, false, "blocked"},
		{"AABABB", Mixed, nil, false, false, "partly interleaved"},
		{"ABA", Mixed, nil, false, false, "2 of A and 1 of B"},
	}
	for _, tc := range tests {
		t.Run(tc.order, func(t *testing.T) {
			a, b := starts(tc.order)
			d := DetectDesign(a, b)
			if d.Layout != tc.want || !slices.Equal(d.Pairs, tc.pairs) || !strings.Contains(d.Note, tc.note) ||
				d.Counterbalanced() != tc.balanced || d.Paired() != tc.pair {
				t.Errorf("got %v %v balanced %v paired %v %q; want %v %v %v %v note with %q", d.Layout, d.Pairs, d.Counterbalanced(), d.Paired(),
					d.Note, tc.want, tc.pairs, tc.balanced, tc.pair, tc.note)
			}
		})
	}
}

// TestDetectDesignOrderAndUnknown: the pairs follow start times, not the
// order the runs were given in; missing or shared start times leave the
// design unknown.
func TestDetectDesignOrderAndUnknown(t *testing.T) {
	a, b := starts("BAABBA")
	slices.Reverse(a) // A's runs listed newest first
	d := DetectDesign(a, b)
	if want := [][2]int{{2, 0}, {1, 1}, {0, 2}}; d.Layout != Interleaved || !slices.Equal(d.Pairs, want) || d.BFirst != 2 {
		t.Errorf("got %v %v B first %d, want interleaved %v, B first 2", d.Layout, d.Pairs, d.BFirst, want)
	}
	a, b = starts("ABAB")
	a[1] = time.Time{}
	if d := DetectDesign(a, b); d.Layout != LayoutUnknown {
		t.Errorf("zero start time: %v", d.Layout)
	}
	a, b = starts("ABAB")
	b[0] = a[0]
	if d := DetectDesign(a, b); d.Layout != LayoutUnknown {
		t.Errorf("shared start time: %v", d.Layout)
	}
	if d := DetectDesign(nil, b); d.Layout != LayoutUnknown || d.Note == "" {
		t.Errorf("no A runs: %v %q", d.Layout, d.Note)
	}
	for l, s := range map[Layout]string{LayoutUnknown: "unknown", Interleaved: "interleaved", Blocked: "blocked", Mixed: "mixed"} {
		if l.String() != s {
			t.Errorf("%d.String() = %q", l, l.String())
		}
	}
}
