package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/servesim"
)

// fence returns the body of the first fenced block of kind lang in md
// that holds want.
func fence(t *testing.T, md, lang, want string) string {
	t.Helper()
	for _, part := range strings.Split(md, "```"+lang+"\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		if strings.Contains(body, want) {
			return body
		}
	}
	t.Fatalf("no ```%s block with %q", lang, want)
	return ""
}

// TestCSVLoadsAsNumbers runs docs/outputs.md's example as printed: the
// command that writes report.csv from four runs, then the pandas lines
// that read it. The long CSV's value column is read strictly, as pandas
// types columns, everywhere; the pandas lines run, and their frames are
// held to float64 numbers, where python3 with pandas is installed.
func TestCSVLoadsAsNumbers(t *testing.T) {
	md := mustReadFile(t, filepath.Join("..", "..", "docs", "outputs.md"))
	sh := strings.TrimSpace(fence(t, md, "sh", "report.csv"))
	py := fence(t, md, "python", "report.csv")
	dir := t.TempDir()
	a, _ := benchServer(t, servesim.Config{EOSProb: -1})
	b, _ := benchServer(t, servesim.Config{EOSProb: -1, MaxRunning: 2})
	wl := filepath.Join(dir, "wl.jsonl")
	mustRun(t, "workload", "random", "--num", "8", "--input-len", "4", "--output-len", "4", "--seed", "1", "--out", wl)
	for _, r := range []struct{ url, out string }{{a.URL, "a-1.json"}, {b.URL, "b-1.json"}, {a.URL, "a-2.json"}, {b.URL, "b-2.json"}} {
		mustRun(t, "benchmark", "--url", r.url, "--workload", wl, "--concurrency", "2", "--out", filepath.Join(dir, r.out))
	}
	cmdline, target, ok := strings.Cut(sh, " > ")
	if !ok || strings.TrimSpace(target) != "report.csv" {
		t.Fatalf("the page's command %q does not write report.csv", sh)
	}
	words, err := shellWords(cmdline, dir)
	if err != nil || words[0] != "servecmp" {
		t.Fatalf("%q: %v", cmdline, err)
	}
	t.Chdir(dir)
	var o, e bytes.Buffer
	if code := run(context.Background(), words[1:], &o, &e); code != 0 {
		t.Fatalf("%s: exit %d\n%s", sh, code, e.String())
	}
	if err := os.WriteFile("report.csv", o.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range csvNumbers("report.csv", o.Bytes()) {
		t.Error(p)
	}
	rows := readCSV(t, "report.csv")
	for _, r := range rows[1:] {
		if r[5] != "" && !pandasNumber(r[5]) {
			t.Errorf("report.csv: value %q of %s/%s is not a number", r[5], r[0], r[3])
		}
	}
	runPandas(t, py)
}

// runPandas runs the page's pandas lines, then checks that the frames
// they made hold numbers.
func runPandas(t *testing.T, py string) {
	t.Helper()
	python := pandasPython()
	if python == "" {
		t.Log("python3 with pandas not installed: the page's pandas lines not run (the strict CSV reading above stands in)")
		return
	}
	check := py + `
assert str(df["value"].dtype) == "float64", df["value"].dtype
assert all(str(d) == "float64" for d in numbers.dtypes), numbers.dtypes
assert numbers.loc["ttft_ms_p50", "a"] > 0
assert words.loc["ttft_ms_p50", "verdict"] != ""
`
	out, err := exec.Command(python, "-c", check).CombinedOutput()
	if err != nil {
		t.Fatalf("docs/outputs.md's pandas lines: %v\n%s", err, out)
	}
	t.Logf("pandas:\n%s", out)
}

// pandasPython is the first python3 on PATH that imports pandas, or "".
func pandasPython() string {
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(d, "python3")
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue
		}
		if exec.Command(p, "-c", "import pandas").Run() == nil {
			return p
		}
	}
	return ""
}
