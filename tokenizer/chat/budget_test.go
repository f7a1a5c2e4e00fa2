package chat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestHostileTemplates: a template is untrusted computation; each of
// these ends with a one-line error (or renders), never a crash, a hang
// or unbounded memory.
func TestHostileTemplates(t *testing.T) {
	tests := []struct {
		name, src string
		budget    bool // the error is the budget's
	}{
		{"endless loop", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", true},
		{"string multiplication", "{{ 'a' * 10000000000 }}", true},
		{"doubling", "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}", true},
		{"output flood", "{% for a in range(1000000) %}{{ 'x' * 1000 }}{% endfor %}", true},
		{"recursive macro", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", true},
		{"list multiplication", "{{ ([1] * 100000000) | length }}", true},
	}
	for _, tc := range tests {
		tp, err := Parse("h.jinja", tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		start := time.Now()
		_, err = tp.Render(nil, Options{})
		if err == nil || strings.Contains(err.Error(), "\n") || (tc.budget && !errors.Is(err, errBudget)) {
			t.Errorf("%s: error %v, want a one-line budget error", tc.name, err)
		}
		if d := time.Since(start); d > timeScale*20*time.Second {
			t.Errorf("%s: took %v", tc.name, d)
		}
	}
}

// TestToJSONIndent: tojson(indent=-1) renders as Python's json.dumps does
// (newlines without indentation), never panics.
func TestToJSONIndent(t *testing.T) {
	for src, want := range map[string]string{
		"{{ {'a': [1, 2]} | tojson(indent=-1) }}":         "{\n\"a\": [\n1,\n2\n]\n}",
		"{{ {'a': 1} | tojson(indent=0) }}":               "{\n\"a\": 1\n}",
		"{{ {'a': 'é'} | tojson }}":                       `{"a": "é"}`,
		"{{ {'b': 1, 'a': 2} | tojson(sort_keys=true) }}": `{"a": 2, "b": 1}`,
		"{{ [1] | tojson(separators=(',', ':')) }}":       `[1]`,
	} {
		got := render(t, src)
		if got != want {
			t.Errorf("%s: %q, want %q", src, got, want)
		}
	}
}

func render(t *testing.T, src string) string {
	t.Helper()
	tp, err := Parse("t.jinja", src)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tp.Render(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHugeTemplates: a 4 MB template, deeply nested or flat, parses with a
// bounded stack (an error past the nesting limit) and renders.
func TestHugeTemplates(t *testing.T) {
	deep := []string{
		strings.Repeat("{% if true %}", 400_000) + strings.Repeat("{% endif %}", 400_000),
		"{{ " + strings.Repeat("(", 2_000_000) + "1" + strings.Repeat(")", 2_000_000) + " }}",
		"{{ " + strings.Repeat("[", 2_000_000) + strings.Repeat("]", 2_000_000) + " }}",
		"{{ " + strings.Repeat("not ", 1_000_000) + "x }}",
		"{{ " + strings.Repeat("-", 4_000_000) + "1 }}",
	}
	for i, src := range deep {
		if _, err := Parse("deep.jinja", src); err == nil || !strings.Contains(err.Error(), "deeper than") {
			t.Errorf("deep template %d: %v", i, err)
		}
	}
	flat := strings.Repeat("{{ 'ab' }}{% if x %}y{% endif %}", 4<<20/32)
	tp, err := Parse("flat.jinja", flat)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tp.Render(nil, Options{}); err != nil || len(out) != 2*(4<<20/32) {
		t.Errorf("flat template: %d bytes, %v", len(out), err)
	}
}

// TestRenderCancel: rendering stops soon after its context is done.
func TestRenderCancel(t *testing.T) {
	tp, err := Parse("slow.jinja", "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err = tp.RenderContext(ctx, nil, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > timeScale*2*time.Second {
		t.Errorf("stopped after %v", d)
	}
}
