package table

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"gemm_kernel<float, 128>", "gemm_kernel<float, 128>"},
		{"ünïcode ✓ 核", "ünïcode ✓ 核"},
		{`back\slash`, `back\slash`},
		{"a\nb", `a\nb`},
		{"a\r\tb", `a\r\tb`},
		{"\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"del\x7f", `del\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"bidi\u202eevil\u2066", `bidi\u202eevil\u2066`},
		{"sep\u2028x", `sep\u2028x`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"nul\x00", `nul\x00`},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestEncodersEscape checks that a hostile string in a title, a header,
// a cell or a note cannot add a line to text or Markdown output, nor
// carry a terminal escape.
func TestEncodersEscape(t *testing.T) {
	evil := "k\n| forged | row |\nnote: \x1b[31mred\u202e"
	tb := &Table{Title: "T" + evil, Columns: []Column{{Name: "name" + evil}, {Name: "time", Unit: NS}}}
	tb.Add(evil, int64(1_000_000))
	tb.Notes = []string{"n" + evil}
	for name, enc := range map[string]Encoder{"text": Text, "markdown": Markdown} {
		var b bytes.Buffer
		if err := enc(&b, []*Table{tb}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		lines := strings.Count(out, "\n")
		want := map[string]int{"text": 4, "markdown": 7}[name]
		if lines != want || strings.ContainsAny(out, "\x1b\u202e") {
			t.Errorf("%s: %d lines (want %d), output:\n%s", name, lines, want, out)
		}
	}
}

// FuzzEscape checks, for any string, that Escape's output holds no
// character it must escape and that text without such characters is
// left as it is.
func FuzzEscape(f *testing.F) {
	f.Add("plain")
	f.Add("a\nb\x1b[31m\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		for i, r := range got {
			if unsafeRune(r, utf8.RuneLen(r)) || (r == utf8.RuneError && !strings.HasPrefix(got[i:], "\uFFFD")) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, got, r)
			}
		}
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q is not valid UTF-8", s, got)
		}
		if strings.Count(got, "\n") != 0 {
			t.Fatalf("Escape(%q) holds a line break", s)
		}
	})
}
