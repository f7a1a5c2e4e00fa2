//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/testkit/golden"
)

// The excerpt of the demo's reports in docs/ollama.md sits between these
// lines; TestDemoOllama writes it (UPDATE_GOLDEN=1).
const (
	demoOllamaDoc   = "../../docs/ollama.md"
	demoOllamaBegin = "<!-- begin demo-ollama excerpt -->"
	demoOllamaEnd   = "<!-- end demo-ollama excerpt -->"
)

// TestDemoOllama runs make demo-ollama's script (servecmp run with
// llama.cpp's server and Ollama launched from ../shared/engines) and holds
// it to issue 23's acceptance: Ollama and its version recorded, a check
// that passes on the raw model, a COMPARABLE first pair, and the
// templated pair NOT COMPARABLE on its inputs with the template named as
// the cause. With UPDATE_GOLDEN=1 it writes the reports' excerpt into
// docs/ollama.md; otherwise the page must show the same outcomes.
func TestDemoOllama(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: runs both engines for minutes")
	}
	for _, f := range []string{"llama.cpp/llama-server", "llama.cpp/tiny-llama-2L128.gguf", "ollama/bin/ollama", "ollama/Modelfile.tiny"} {
		if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "engines", f)); err != nil {
			t.Skipf("engine absent: %v", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "scripts/demo-ollama.sh")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), asMainEnv+"=1", "SERVECMP="+self, "DEMO_OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("demo-ollama: %v\n%s", err, b)
	}
	exact := readText(t, filepath.Join(out, "exact", "report.txt"))
	templated := readText(t, filepath.Join(out, "templated", "report.txt"))
	unwrap := regexp.MustCompile(`\n +`) // text reports wrap their lines at 100 columns
	exactLine, templatedLine := unwrap.ReplaceAllString(exact, " "), unwrap.ReplaceAllString(templated, " ")
	var res result.Result
	if err := json.Unmarshal([]byte(readText(t, filepath.Join(out, "exact", "run-b-1", "result.json"))), &res); err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Engine != "ollama" || !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(m.EngineVersion) || m.Extra["ollama_template"] != "raw" || m.Extra["ollama_repeat_penalty"] != "1" {
		t.Errorf("B's manifest: engine %q version %q extra %v", m.Engine, m.EngineVersion, m.Extra)
	}
	for _, w := range []string{"\nCOMPARABLE: model, workload, load and resource contract agree", "\ncorrectness: PASSED, 8/8 requests match exactly",
		"\nnote: B: server metrics: not scraped (engine ollama has no metrics endpoint)"} {
		if !strings.Contains(exactLine, w) {
			t.Errorf("the raw pair's report lacks %q", w)
		}
	}
	for _, w := range []string{"NOT COMPARABLE: inputs.prompt_tokens differs without being declared intentional",
		"\ninputs: the engines saw different inputs for the same workload: B−A +", "(manifest extra ollama_template=wrapped)"} {
		if !strings.Contains(templatedLine, w) {
			t.Errorf("the templated pair's report lacks %q", w)
		}
	}
	excerpt := strings.ReplaceAll(demoExcerpt(exact, templated), out+string(filepath.Separator), "demo-ollama-out/")
	if golden.Update() {
		writeDemoExcerpt(t, excerpt)
		return
	}
	doc := readText(t, demoOllamaDoc)
	for _, w := range []string{"\nCOMPARABLE: model, workload, load and resource contract agree", "\nNOT COMPARABLE: inputs.prompt_tokens differs\n"} {
		if !strings.Contains(doc, w) {
			t.Errorf("%s: the demo's excerpt lacks %q (UPDATE_GOLDEN=1 rewrites it)", demoOllamaDoc, w)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// demoExcerpt picks from the two reports what docs/ollama.md shows: the
// raw pair's conclusion, headline, a few metric rows, totals, capacity
// and notes on B; the templated pair's conclusion and what it says of the
// inputs. "..." marks lines left out.
func demoExcerpt(exact, templated string) string {
	el, tl := strings.Split(exact, "\n"), strings.Split(templated, "\n")
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	add("$ servecmp run testdata/demo/ollama.yaml --out demo-ollama-out/exact")
	add(wrapped(el, 0)...)
	add("")
	add(block(el, "== Layer 1", "quality:")...)
	add("...")
	for _, l := range block(el, "Serving metrics", "name ")[1:] {
		if !strings.HasPrefix(l, "  ") { // the title's wrapped lines
			add(l)
		}
	}
	for _, l := range el {
		for _, name := range []string{"ttft_ms_p50 ", "ttft_ms_p99 ", "tpot_ms_p50 ", "e2e_ms_p50 ", "output_throughput "} {
			if strings.HasPrefix(l, name) {
				add(l)
			}
		}
	}
	add("...")
	add(block(el, "Totals over all runs", "")...)
	add("")
	add(block(el, "Capacity under the SLO", "note: capacity verdict")...)
	add("...")
	for i, l := range el {
		if strings.HasPrefix(l, "note: B: ") {
			add(wrapped(el, i)...)
		}
	}
	add("", "$ servecmp run testdata/demo/ollama-templated.yaml --out demo-ollama-out/templated")
	add(wrapped(tl, 0)...)
	add("...")
	for i, l := range tl {
		if l == "NOT COMPARABLE: inputs.prompt_tokens differs" || strings.HasPrefix(l, "inputs: ") {
			add(wrapped(tl, i)...)
		}
	}
	add("...")
	for _, l := range block(tl, "Totals over all runs", "") {
		if strings.HasPrefix(l, "name ") || strings.HasPrefix(l, "input_tokens") || strings.HasPrefix(l, "output_tokens") {
			add(l)
		}
	}
	return strings.Join(out, "\n")
}

// wrapped returns line i and the lines that continue it (the text
// encoder wraps long lines, indenting what follows by two spaces).
func wrapped(lines []string, i int) []string {
	j := i + 1
	for j < len(lines) && strings.HasPrefix(lines[j], "  ") {
		j++
	}
	return lines[i:j]
}

// block returns the lines from the first that starts with from to the
// first after it that starts with to (included), or to the next blank
// line when to is "".
func block(lines []string, from, to string) []string {
	for i, l := range lines {
		if !strings.HasPrefix(l, from) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if (to == "" && lines[j] == "") || (to != "" && strings.HasPrefix(lines[j], to)) {
				if to == "" {
					return lines[i:j]
				}
				return append(lines[i:j:j], wrapped(lines, j)...)
			}
		}
		return lines[i:]
	}
	return nil
}

// writeDemoExcerpt puts the excerpt, in a code block, between the
// markers of docs/ollama.md.
func writeDemoExcerpt(t *testing.T, excerpt string) {
	doc := readText(t, demoOllamaDoc)
	i, j := strings.Index(doc, demoOllamaBegin), strings.Index(doc, demoOllamaEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q", demoOllamaDoc, demoOllamaBegin, demoOllamaEnd)
	}
	doc = doc[:i+len(demoOllamaBegin)] + "\n```\n" + excerpt + "\n```\n" + doc[j:]
	if err := os.WriteFile(demoOllamaDoc, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}
