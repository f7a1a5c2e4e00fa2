package compare

import (
	"testing"
)

// TestGPUWorkFrom: the deltas say that their work came from the profile
// windows only when both sides' work did.
func TestGPUWorkFrom(t *testing.T) {
	withFrom := func(p Profile, from string) Profile {
		p.Report.Ranks[0].Work.From = from
		return p
	}
	tests := []struct {
		name, fromA, fromB, want string
	}{
		{"both windows", "a-result.json", "b-result.json", "A: a-result.json, B: b-result.json"},
		{"one --work", "a-result.json", "flag", ""},
		{"iterations", "iterations", "b-result.json", ""},
		{"both --work", "flag", "flag", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := gpuTime([]Profile{withFrom(profile("0", 600e6, 300e6, 100e6, 100), tt.fromA)},
				[]Profile{withFrom(profile("0", 400e6, 350e6, 50e6, 120), tt.fromB)})
			if g.Basis != "output_token" || g.WorkFrom != tt.want {
				t.Errorf("basis %s, work_from %q, want output_token and %q", g.Basis, g.WorkFrom, tt.want)
			}
		})
	}
}
