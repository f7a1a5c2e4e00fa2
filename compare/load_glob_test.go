package compare

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExpand: patterns expand in name order, directories give each flag
// its kind of file (told apart by schema), files named twice are read
// once, literal paths pass through, and a pattern or directory that
// names nothing is an error naming the flag.
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a-run2.json":          `{"schema":"servecmp.result/2"}`,
		"a-run1.json":          `{"schema":"servecmp.result/1","manifest":{}}`,
		"a-run1.records.jsonl": `{"id":"x"}`,
		"check.json":           `{"schema":"servecmp.check/2"}`,
		"profile.json":         `{"schema":"servecmp.analysis/1"}`,
		"old-profile.json":     `{"rules_digest":"d"}`,
		"notes.txt":            "x",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "empty"), 0o755)
	j := func(names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = filepath.Join(dir, n)
		}
		return out
	}
	tests := []struct {
		name string
		in   Paths
		want Paths
		err  string
	}{
		{"glob sorted", Paths{A: j("a-run*.json")}, Paths{A: j("a-run1.json", "a-run2.json")}, ""},
		{"directory by kind", Paths{A: j("."), RecordsA: j("."), ProfilesA: j(".")},
			Paths{A: j("a-run1.json", "a-run2.json"), RecordsA: j("a-run1.records.jsonl"), ProfilesA: j("old-profile.json", "profile.json")}, ""},
		{"twice kept twice (LoadInput refuses it)", Paths{B: j("a-run2.json", "a-run?.json")}, Paths{B: j("a-run2.json", "a-run1.json", "a-run2.json")}, ""},
		{"literal kept", Paths{A: []string{"missing.json"}}, Paths{A: []string{"missing.json"}}, ""},
		{"no match", Paths{B: j("b-run*.json")}, Paths{}, "--b " + filepath.Join(dir, "b-run*.json") + ": no file matches"},
		{"empty directory", Paths{RecordsB: j("empty")}, Paths{}, "--records-b " + filepath.Join(dir, "empty") + ": directory holds no records file"},
		{"bad pattern", Paths{ProfilesB: []string{"[x"}}, Paths{}, "--profile-b [x: bad pattern"},
	}
	for _, tc := range tests {
		got, err := Expand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for _, pair := range [][2][]string{{got.A, tc.want.A}, {got.B, tc.want.B}, {got.RecordsA, tc.want.RecordsA}, {got.ProfilesA, tc.want.ProfilesA}} {
			if !slices.Equal(pair[0], pair[1]) {
				t.Errorf("%s: got %v, want %v", tc.name, pair[0], pair[1])
			}
		}
	}
}
