package rules

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // every error, in order
	}{
		{"empty file", "", []string{`f.yaml:1: empty file: want a mapping with a "rules" list`}},
		{"comment only", "# servecmp rules v1\n", []string{`f.yaml:1: empty file: want a mapping with a "rules" list`}},
		{"not yaml", "rules: [a, b", []string{`f.yaml:1: not valid YAML: did not find expected ',' or ']'`}},
		{"tab indent", "rules:\n  - id: a\n\tregion: x\n", []string{`f.yaml:2: not valid YAML: found a tab character that violates indentation`}},
		{"top is list", "- a\n- b\n", []string{`f.yaml:1: want a mapping with a "rules" list at the top level, found a list`}},
		{"top is scalar", "hello\n", []string{`f.yaml:1: want a mapping with a "rules" list at the top level, found a scalar`}},
		{"no rules key", "version: 1\n", []string{
			`f.yaml:1: unknown top-level key "version" (want "rules")`,
			`f.yaml:1: no "rules" list`}},
		{"rules not a list", "rules: 5\n", []string{`f.yaml:1: "rules" must be a list of rules, found a scalar`}},
		{"rules null", "rules:\n", []string{`f.yaml:1: "rules" must be a list of rules, found nothing`}},
		{"empty list", "rules: []\n", []string{`f.yaml:1: no rules: the "rules" list is empty`}},
		{"two documents", "rules:\n  - id: a\n    region: ffn\n    pattern: a\n---\nrules: []\n", []string{
			`f.yaml:5: more than one YAML document; a rule file holds one`}},
		{"rule not a mapping", "rules:\n  - foo\n", []string{
			`f.yaml:2: rule 1: want a mapping with id, region and pattern or nvtx, found a scalar`}},
		{"unknown key", "rules:\n  - id: a\n    region: ffn\n    pattern: a\n    colour: red\n", []string{
			`f.yaml:5: rule 1: unknown key "colour" (allowed: id, region, class, pattern, nvtx)`}},
		{"missing id", "rules:\n  - region: ffn\n    pattern: a\n", []string{`f.yaml:2: rule 1: missing id`}},
		{"bad id", "rules:\n  - id: Big Name\n    region: ffn\n    pattern: a\n", []string{
			`f.yaml:2: rule 1: invalid id "Big Name": use lower-case letters, digits, '.', '_' and '-'`}},
		{"missing region", "rules:\n  - id: a\n    pattern: a\n", []string{`f.yaml:2: rule "a": missing region`}},
		{"bad region", "rules:\n  - id: a\n    region: mlp\n    pattern: a\n", []string{
			`f.yaml:3: rule "a": unknown region "mlp" (want attention, ffn, communication, io, other)`}},
		{"bad class", "rules:\n  - id: a\n    region: other\n    class: matmul\n    pattern: a\n", []string{
			`f.yaml:4: rule "a": unknown class "matmul" (want one of ` + strings.Join(ClassNames(), ", ") + `)`}},
		{"missing pattern", "rules:\n  - id: a\n    region: ffn\n", []string{`f.yaml:2: rule "a": missing pattern (or nvtx)`}},
		{"both pattern and nvtx", "rules:\n  - id: a\n    region: ffn\n    pattern: a\n    nvtx: b\n", []string{
			`f.yaml:5: rule "a": has both pattern and nvtx; give one`}},
		{"empty pattern", "rules:\n  - id: a\n    region: ffn\n    pattern: ''\n", []string{`f.yaml:4: rule "a": empty pattern`}},
		{"invalid regexp", "rules:\n  - id: a\n    region: ffn\n    pattern: '(a'\n", []string{
			"f.yaml:4: rule \"a\": invalid pattern: error parsing regexp: missing closing ): `(a`"}},
		{"invalid nvtx regexp", "rules:\n  - id: a\n    region: ffn\n    nvtx: 'a(?<'\n", []string{
			"f.yaml:4: rule \"a\": invalid nvtx: error parsing regexp: invalid or unsupported Perl syntax: `(?<`"}},
		{"pattern not a string", "rules:\n  - id: a\n    region: ffn\n    pattern: [a]\n", []string{
			`f.yaml:4: rule 1: pattern must be a string, found a list`}},
		{"duplicate id", "rules:\n  - id: a\n    region: ffn\n    pattern: a\n  - id: a\n    region: io\n    pattern: b\n", []string{
			`f.yaml:5: duplicate id "a" (first at line 2)`}},
		{"duplicate key", "rules:\n  - id: a\n    region: ffn\n    region: io\n    pattern: a\n", []string{
			`f.yaml:4: rule 1: key "region" given twice (first at line 3)`}},
		{"all empty values", "rules:\n  - id:\n    region:\n    pattern:\n", []string{
			`f.yaml:2: rule 1: missing id`,
			`f.yaml:2: rule 1: missing region`,
			`f.yaml:2: rule 1: missing pattern (or nvtx)`}},
		{"several errors at once", `# servecmp rules v1
rules:
  - id: ok-rule
    region: attention
    pattern: 'flash'
  - id: bad.region
    region: attn
    pattern: 'x'
  - id: bad-re
    region: ffn
    pattern: '[z-a]'
  - region: io
    nvtx: 'lm_head'
  - id: ok-rule
    region: io
    class: sample
    pattern: 'sampling'
    extra: 1
`, []string{
			`f.yaml:7: rule "bad.region": unknown region "attn" (want attention, ffn, communication, io, other)`,
			"f.yaml:11: rule \"bad-re\": invalid pattern: error parsing regexp: invalid character class range: `z-a`",
			`f.yaml:12: rule 4: missing id`,
			`f.yaml:14: duplicate id "ok-rule" (first at line 3)`,
			`f.yaml:18: rule 5: unknown key "extra" (allowed: id, region, class, pattern, nvtx)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tt.in), "f.yaml")
			if err == nil {
				t.Fatalf("Parse succeeded with %d rules, want errors %q", len(s.Rules), tt.want)
			}
			if s != nil {
				t.Errorf("Parse returned a set along with an error")
			}
			got := strings.Split(err.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.want)
			}
			// Every part is a *SyntaxError with a positive line.
			n := 0
			for _, e := range unjoin(err) {
				var se *SyntaxError
				if !errors.As(e, &se) || se.Line < 1 || se.File != "f.yaml" {
					t.Errorf("error %v is not a SyntaxError with file and line", e)
				}
				n++
			}
			if n != len(tt.want) {
				t.Errorf("got %d joined errors, want %d", n, len(tt.want))
			}
		})
	}
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestParseValid(t *testing.T) {
	in := `# servecmp rules v1
rules:
  - id: fa3-fwd
    region: attention
    class: attn-core
    pattern: '^flash_fwd'
  - id: nvtx-qkv
    region: attention
    nvtx: '(^|[./ ])qkv_proj\b'
  - id: gemm
    region: other
    class: gemm
    pattern: 'gemm|^nvjet_|cutlass'
  - id: x
    region: io
    pattern: &p 'sampl'
  - id: y
    region: io
    pattern: *p
`
	s, err := Parse(strings.NewReader(in), "mine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rules) != 5 {
		t.Fatalf("got %d rules, want 5", len(s.Rules))
	}
	r := s.Rules[0]
	if r.ID != "fa3-fwd" || r.Region != Attention || r.Class != AttnCore || r.Name == nil || r.NVTX != nil || r.File != "mine.yaml" || r.Line != 3 {
		t.Errorf("rule 0 = %+v", r)
	}
	if r := s.Rules[1]; r.NVTX == nil || r.Name != nil || r.Line != 7 {
		t.Errorf("rule 1 = %+v", r)
	}
	if s.Rules[4].Name.String() != "sampl" {
		t.Errorf("alias not resolved: %q", s.Rules[4].Name)
	}
	for _, c := range []struct {
		name string
		want int
	}{
		{"flash_fwd_kernel", 0},
		{"nvjet_tst_64x8", 2},
		{"my_flash_fwd", -1}, // anchored
		{"qkv_proj", -1},     // nvtx rules never match names
		{"sampling", 3},      // first match wins over rule 4
	} {
		if got := s.MatchName(c.name); got != c.want {
			t.Errorf("MatchName(%q) = %d, want %d", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		text string
		want int
	}{
		{"model.layers.0.self_attn.qkv_proj", 1},
		{"qkv_proj", 1},
		{"flash_fwd", -1},
		{"model.qkv_projection", -1},
	} {
		if got := s.MatchNVTX(c.text); got != c.want {
			t.Errorf("MatchNVTX(%q) = %d, want %d", c.text, got, c.want)
		}
	}
	if n, v := s.Counts(); n != 4 || v != 1 {
		t.Errorf("Counts = %d, %d", n, v)
	}
}

func TestDigestAndPrepend(t *testing.T) {
	a := mustParse(t, "rules:\n  - id: a\n    region: ffn\n    pattern: x\n", "a.yaml")
	a2 := mustParse(t, "# other file, same rules\nrules:\n\n  - id: a\n    region: ffn\n    pattern: x\n", "b.yaml")
	b := mustParse(t, "rules:\n  - id: a\n    region: io\n    pattern: x\n", "c.yaml")
	if a.Digest != a2.Digest {
		t.Errorf("digest depends on file name or layout")
	}
	if a.Digest == b.Digest {
		t.Errorf("digest ignores the region")
	}
	ab := a.Prepend(b)
	if len(ab.Rules) != 2 || ab.Rules[0].Region != IO || ab.Rules[1].Region != FFN {
		t.Fatalf("Prepend order wrong: %+v", ab.Rules)
	}
	if got := ab.MatchName("x"); got != 0 {
		t.Errorf("front rule must win, got %d", got)
	}
	if ab.Digest == a.Digest || ab.Digest == b.Digest || ab.Digest == b.Prepend(a).Digest {
		t.Errorf("digest of a prepended set should differ from its parts and from the other order")
	}
	if len(a.Rules) != 1 || len(b.Rules) != 1 {
		t.Errorf("Prepend changed its inputs")
	}
	if got := a.Prepend(nil); len(got.Rules) != 1 || got.Digest != a.Digest {
		t.Errorf("Prepend(nil) = %+v", got)
	}
}

func mustParse(t *testing.T, in, file string) *Set {
	t.Helper()
	s, err := Parse(strings.NewReader(in), file)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(p, []byte("rules:\n  - id: a\n    region: ffn\n    pattern: x\n  - id: b\n    region: nowhere\n    pattern: y\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	if err == nil || err.Error() != p+`:6: rule "b": unknown region "nowhere" (want attention, ffn, communication, io, other)` {
		t.Errorf("Load error = %v", err)
	}
	missing := filepath.Join(dir, "none.yaml")
	_, err = Load(missing)
	if err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v", err)
	}
	_, err = Load(dir)
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Load of a directory: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("rules:\n  - id: a\n    region: ffn\n    pattern: x\n")
	f.Add("rules:\n  - id: a\n    region: ffn\n    nvtx: '(x'\n    class: q\n")
	f.Add("rules: [{id: a, region: io, pattern: b}, {id: a}]\n")
	f.Add("x: &a [1]\nrules: *a\n")
	f.Add("rules:\n  - &r {id: a, region: io, pattern: b}\n  - *r\n")
	f.Add("---\n---\n")
	f.Add("rules:\n- id: a\n  region: ffn\n  pattern: !!binary aGVsbG8=\n")
	for _, fl := range DefaultFiles() {
		f.Add(string(fl.Data))
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(strings.NewReader(in), "fuzz.yaml")
		if err == nil {
			if s == nil || len(s.Rules) == 0 {
				t.Fatalf("no error and no rules")
			}
			for _, r := range s.Rules {
				if (r.Name == nil) == (r.NVTX == nil) || r.Line < 1 || r.ID == "" {
					t.Fatalf("bad rule %+v", r)
				}
			}
			return
		}
		for _, e := range unjoin(err) {
			var se *SyntaxError
			if !errors.As(e, &se) {
				t.Fatalf("error %T %v is not a SyntaxError", e, e)
			}
			if se.Line < 1 {
				t.Fatalf("SyntaxError without a line: %v", se)
			}
		}
	})
}

func TestClass(t *testing.T) {
	names := ClassNames()
	if len(names) != int(numClasses)-1 {
		t.Fatalf("%d class names", len(names))
	}
	amb, anc := 0, 0
	for _, n := range names {
		c, ok := ParseClass(n)
		if !ok || c.String() != n || c == NoClass {
			t.Errorf("ParseClass(%q) = %v, %v", n, c, ok)
		}
		if c.Ambiguous() == c.Anchor() {
			t.Errorf("%s: ambiguous %v, anchor %v: want exactly one", n, c.Ambiguous(), c.Anchor())
		}
		if c.Ambiguous() {
			amb++
		} else {
			anc++
		}
	}
	if amb != 8 || anc != 6 {
		t.Errorf("%d ambiguous, %d anchor classes", amb, anc)
	}
	if c, ok := ParseClass("tensor"); ok || c != NoClass {
		t.Errorf("ParseClass(tensor) = %v, %v", c, ok)
	}
	if NoClass.Ambiguous() || NoClass.Anchor() || NoClass.String() != "" {
		t.Error("NoClass")
	}
}
