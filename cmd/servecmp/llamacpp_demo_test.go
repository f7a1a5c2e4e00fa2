//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/internal/testkit/golden"
)

// llamaDemoDir is the engine the demo's experiment file launches, from
// this package.
const llamaDemoDir = "../../../shared/engines/llama.cpp"

// excerptMark opens the fenced block of docs/llamacpp.md that holds the
// excerpt of make demo-llamacpp's report.
const excerptMark = "<!-- excerpt of demo-llamacpp-out/report.txt, written by TestLlamaCppDemoExcerpt -->\n```\n"

// TestLlamaCppDemoExcerpt runs make demo-llamacpp's experiment file with
// servecmp run (both llama.cpp servers launched, runs interleaved) and
// holds docs/llamacpp.md's excerpt to its report: the lines it shows
// must be the report's lines, their figures aside (they vary from run to
// run). UPDATE_GOLDEN=1 writes the fresh excerpt into the page. Skips
// without the engine (../shared) and in -short.
func TestLlamaCppDemoExcerpt(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: two llama.cpp servers, about a minute")
	}
	if _, err := os.Stat(filepath.Join(llamaDemoDir, "llama-server")); err != nil {
		t.Skipf("llama.cpp engine absent: %v", err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"run", filepath.Join("..", "..", "testdata", "demo", "llamacpp.yaml"), "--out", out}, &o, &e)
	if code != 0 {
		t.Fatalf("servecmp run: exit %d\n%s", code, e.String())
	}
	for _, l := range strings.Split(e.String(), "\n") {
		// A sweep that did not saturate depends on how busy the machine
		// is; any other warning is about the engine's ways, which are none.
		if strings.Contains(l, "warning") && !strings.Contains(l, "saturation was not reached") {
			t.Errorf("the demo's run warned (the engine's ways are no warnings): %s", l)
		}
	}
	fresh := llamaExcerpt(t, o.String())
	page := filepath.Join("..", "..", "docs", "llamacpp.md")
	md := mustReadFile(t, page)
	head, rest, ok := strings.Cut(md, excerptMark)
	if !ok {
		t.Fatalf("%s lacks the excerpt's mark %q", page, excerptMark)
	}
	old, tail, _ := strings.Cut(rest, "```\n")
	if golden.Update() {
		if err := os.WriteFile(page, []byte(head+excerptMark+fresh+"```\n"+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if shape(old) != shape(fresh) {
		t.Errorf("docs/llamacpp.md's excerpt is not the report's (figures aside); UPDATE_GOLDEN=1 rewrites it:\n--- page\n%s--- report\n%s", old, fresh)
	}
}

// llamaExcerpt cuts the page's excerpt out of the report: the conclusion,
// the layer's headline, five metric rows, the totals of requests and
// tokens and the server's counters, with "..." where lines are left out.
func llamaExcerpt(t *testing.T, report string) string {
	t.Helper()
	lines := strings.Split(report, "\n")
	keep := make([]bool, len(lines))
	i := 0
	for ; i < len(lines) && lines[i] != ""; i++ { // the conclusion
		keep[i] = true
	}
	section := ""
	for ; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "== "), strings.HasPrefix(l, "Serving metrics"), strings.HasPrefix(l, "Totals"), strings.HasPrefix(l, "Server-side"):
			section = l
			keep[i] = true
		case l == "":
			section = ""
		}
		first, _, _ := strings.Cut(strings.TrimSpace(l), " ")
		switch {
		case strings.HasPrefix(section, "== Layer 1") && regexp.MustCompile(`^(COMPARABLE|load|runs|intentional|correctness)\b`).MatchString(l):
			keep[i] = true
		case strings.HasPrefix(section, "Serving metrics") && (strings.HasPrefix(l, "  ") && keep[i-1] || strings.HasPrefix(l, "name ") ||
			first == "ttft_ms_p50" || first == "ttft_ms_p99" || first == "tpot_ms_p50" || first == "e2e_ms_p50" || first == "output_throughput"):
			keep[i] = true
		case strings.HasPrefix(section, "Totals") && (first == "name" || first == "runs" || first == "requests_ok" || first == "requests_failed" || first == "output_tokens"):
			keep[i] = true
		case strings.HasPrefix(section, "Server-side") && l != "":
			keep[i] = true
		}
	}
	var b strings.Builder
	skipped := false
	for i, l := range lines {
		switch {
		case keep[i]:
			if skipped && b.Len() > 0 {
				b.WriteString("...\n")
			}
			b.WriteString(l + "\n")
			skipped = false
		case l != "":
			skipped = true
		}
	}
	if !strings.Contains(b.String(), "Server-side") || !strings.Contains(b.String(), "ttft_ms_p50") {
		t.Fatalf("the report lacks the excerpt's sections:\n%s", report)
	}
	return b.String()
}

var (
	figure  = regexp.MustCompile(`[-+<]?[0-9][0-9.,]*%?|\([^)]*[0-9][^)]*\)`)
	verdict = regexp.MustCompile(` (a|b|~|needs more runs) `)
	dash    = regexp.MustCompile(`(^|\s)-(\s|$)`) // no value: "-", which a figure may take the place of
)

// shape is an excerpt from its layer's heading on (the conclusion before
// it says what this run found, which varies), with its figures (and
// parentheses holding figures), missing values and verdicts replaced by
// #, and each line cut to its first three words: what stays the same from
// run to run (a table kept within 120 columns leaves out an optional
// column when its figures come out wider).
func shape(s string) string {
	_, s, _ = strings.Cut(s, "== Layer 1")
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		l = dash.ReplaceAllString(verdict.ReplaceAllString(figure.ReplaceAllString(l, "#"), " # "), " # ")
		f := strings.Fields(l)
		out = append(out, strings.Join(f[:min(len(f), 3)], " "))
	}
	return strings.Join(out, "\n")
}
