package compare

import (
	"strings"
	"testing"
)

// TestUnrecordedResources: the note names what neither side gave, and
// never a GPU count next to a CPU-only contract; a count of 0 (not
// given) shows as not given, never as "0".
func TestUnrecordedResources(t *testing.T) {
	for _, tc := range []struct {
		typeA, typeB, countA, countB string
		want                         string
	}{
		{"", "", "", "", "gpu_type and gpu_count given on neither side"},
		{"H100", "H100", "", "", "gpu_count given on neither side"},
		{"cpu", "cpu", "", "", ""},
		{"H100", "H100", "8", "8", ""},
		{"H100", "", "8", "", ""},
	} {
		r := &Report{Contract: []Field{{Name: "gpu_type", A: tc.typeA, B: tc.typeB}, {Name: "gpu_count", A: tc.countA, B: tc.countB}}}
		got := r.unrecordedResources()
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: note %q, want %q", tc, got, tc.want)
		}
	}
	if notGiven("0") != "" || notGiven("8") != "8" {
		t.Error("notGiven")
	}
}
