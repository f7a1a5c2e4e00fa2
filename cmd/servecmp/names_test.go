package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/servecmp/servecmp/servesim"
)

// One name per figure: every column of the CSV files (tidy and long),
// and every header of the workbook, is the name the JSON output gives
// the same figure. The tidy tables of analyze and compare are checked
// against the JSON objects they are drawn from (tableSources); the
// workbook's headers, with their unit in parentheses dropped, against
// every name of the comparison's JSON and its CSV columns.

// tableSources maps each CSV table to the JSON objects its columns come
// from: paths of keys, "[]" stepping into arrays, "*" into any key (a
// side's object). A column may be a key of one of those objects, or
// the keys of nested objects joined by "_" (work.from is work_from).
var tableSources = map[string][]string{
	// compare
	"metrics": {"metrics[]"}, "contract": {"contract[]"}, "differences": {"differences[]"}, "counts": {"counts[]"},
	"server_metrics": {"server_metrics[]"}, "sweep_a": {"sweeps[]", "sweeps[].points[]"}, "sweep_b": {"sweeps[]", "sweeps[].points[]"},
	"capacity": {"slo.capacity[]"}, "energy": {"energy.runs[]", "energy.runs[].energy"}, "region_deltas": {"gpu_time.region_deltas[]"},
	"regions_a": {"gpu_time.*.ranks[]", "gpu_time.*.ranks[].regions[]"}, "regions_b": {"gpu_time.*.ranks[]", "gpu_time.*.ranks[].regions[]"},
	"shapes": {"gpu_time.*.ranks[]", "gpu_time.*.ranks[].shapes[]"}, "unmapped": {"gpu_time.*.ranks[]", "gpu_time.*.ranks[].unmapped_top[]"},
	"bottleneck_iterations": {"gpu_time.*.ranks[]", "gpu_time.*.ranks[].iterations"},
	// analyze
	"ranks": {"ranks[]"}, "time": {"ranks[]"}, "regions": {"ranks[]", "ranks[].regions[]"}, "per_work": {"ranks[]", "ranks[].regions[]"},
	"coverage": {"ranks[]", "ranks[].coverage"}, "shapes_analyze": {"ranks[]", "ranks[].shapes[]"},
	"unmapped_top": {"ranks[]", "ranks[].unmapped_top[]"}, "iterations": {"ranks[]", "ranks[].iterations", "gpu_time.*.ranks[]", "gpu_time.*.ranks[].iterations"},
	"iteration_tokens": {"ranks[]", "ranks[].iterations.tokens_histogram[]"}, "across_ranks": {"across_ranks.*"},
}

// derived are the columns a table adds that no JSON key holds, and why.
var derived = map[string]string{
	"side":                 "the a or b a per-side table's row comes from (the JSON's object key)",
	"differences.status":   "intentional, NOT COMPARABLE or differs: the JSON's intentional and critical in a word",
	"across_ranks.figure":  "the JSON object's key, the figure's name (device_work_busy_ns, ...)",
	"across_ranks.min_ns":  "the JSON's min of the row's figure, whose name carries the unit",
	"across_ranks.mean_ns": "the JSON's mean of the row's figure, whose name carries the unit",
	"across_ranks.max_ns":  "the JSON's max of the row's figure, whose name carries the unit",
	"iterations.bucket":    "prefill, decode-only or a tokens [lo, hi) bucket: iterations.prefill, .decode and .tokens_histogram[] in words",
	"Sweep.curve":          "the chart series a sweep's row belongs to: its side and file",
	"Regions.bottleneck":   "whether the row's rank is its side's bottleneck_rank",
	"Contract.differs":     "whether a and b differ",
}

// pivots are tables with a column per value of a JSON field: the value,
// then the JSON name of what the column holds.
var pivots = map[string]struct{ values, name string }{
	"coverage": {"ranks[].coverage.by_method[].method", "time_share"},
}

// pivotNames are the columns a pivoted table may have.
func pivotNames(doc any, table string) map[string]bool {
	out := map[string]bool{}
	p, ok := pivots[table]
	if !ok {
		return out
	}
	path := strings.Split(p.values, ".")
	for _, obj := range at(doc, path[:len(path)-1]) {
		if m, ok := obj.(map[string]any); ok {
			if v, ok := m[path[len(path)-1]].(string); ok {
				out[v+"_"+p.name] = true
			}
		}
	}
	return out
}

// jsonNames collects, under each path of sources, the names a column may
// take: the keys of the objects there and of objects nested in them,
// joined by "_".
func jsonNames(doc any, sources []string) map[string]bool {
	out := map[string]bool{}
	for _, src := range sources {
		for _, obj := range at(doc, strings.Split(src, ".")) {
			addNames(out, obj, nil)
		}
	}
	return out
}

// at returns the values under path (keys, "name[]" for the items of an
// array, "*" for every value of an object).
func at(v any, path []string) []any {
	if len(path) == 0 {
		return []any{v}
	}
	var out []any
	step, arr := strings.CutSuffix(path[0], "[]")
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var next []any
	if step == "*" {
		for _, x := range m {
			next = append(next, x)
		}
	} else if x, ok := m[step]; ok {
		next = append(next, x)
	}
	for _, x := range next {
		if arr {
			items, _ := x.([]any)
			for _, it := range items {
				out = append(out, at(it, path[1:])...)
			}
			continue
		}
		out = append(out, at(x, path[1:])...)
	}
	return out
}

func addNames(out map[string]bool, v any, prefix []string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, x := range m {
		p := append(slices.Clone(prefix), k)
		for i := range p {
			out[strings.Join(p[i:], "_")] = true
		}
		if _, nested := x.(map[string]any); nested && len(p) < 4 {
			addNames(out, x, p)
		}
	}
}

// namesFixture writes an analysis and a comparison of serve-sim runs
// with sweeps, an SLO, a check and two profiles, in every format.
func namesFixture(t *testing.T) (dir string, analysis, comparison any) {
	t.Helper()
	dir = t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	gpu := servesim.GPUSim{Count: 1, IdleWatts: 60, WattsPerSeq: 10} // energy rows and the workbook's Energy sheet
	a, _ := benchServer(t, servesim.Config{EOSProb: -1, GPU: gpu})
	b, _ := benchServer(t, servesim.Config{EOSProb: -1, MaxRunning: 2, EngineName: "sglang", GPU: gpu})
	mustRun(t, "workload", "random", "--num", "12", "--input-len", "4:8", "--output-len", "5", "--seed", "1", "--out", p("wl.jsonl"))
	for _, r := range []struct{ url, name string }{{a.URL, "a1"}, {a.URL, "a2"}, {b.URL, "b1"}, {b.URL, "b2"}} {
		mustRun(t, "benchmark", "--url", r.url, "--workload", p("wl.jsonl"), "--concurrency", "3", "--slo", "ttft_ms:p99<=500",
			"--out", p(r.name+".json"), "--records", p(r.name+".jsonl"), "--gpu-metrics-url", r.url+servesim.GPUMetricsPath)
	}
	for _, r := range []struct{ url, name string }{{a.URL, "sa"}, {b.URL, "sb"}} {
		mustRun(t, "benchmark", "--url", r.url, "--workload", p("wl.jsonl"), "--sweep-concurrency", "1,4", "--slo", "ttft_ms:p99<=500", "--out", p(r.name+".json"))
	}
	mustRun(t, "check", "--a", a.URL, "--b", b.URL, "--workload", p("wl.jsonl"), "--out", p("check.json"))
	demo := filepath.Join("..", "..", "testdata", "demo")
	aj := mustRun(t, "analyze", "--format", "json", "--csv-dir", mkdir(t, p("acsv")), filepath.Join(demo, "vllm-like.sqlite"), filepath.Join(demo, "sglang-like.sqlite"))
	mustRun(t, "analyze", "--save", p("pa.json"), filepath.Join(demo, "vllm-like.sqlite"))
	mustRun(t, "analyze", "--save", p("pb.json"), filepath.Join(demo, "sglang-like.sqlite"))
	args := []string{"compare", "--a", p("a?.json"), "--a", p("sa.json"), "--b", p("b?.json"), "--b", p("sb.json"), "--profile-a", p("pa.json"),
		"--profile-b", p("pb.json"), "--check", p("check.json"), "--intentional", "resources", "--intentional", "load", "--intentional", "engine"}
	cj := mustRun(t, append(args, "--format", "json", "--csv-dir", mkdir(t, p("ccsv")), "--xlsx", p("review.xlsx"))...)
	if err := os.WriteFile(p("long.csv"), []byte(mustRun(t, append(args, "--format", "csv")...)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(aj), &analysis); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(cj), &comparison); err != nil {
		t.Fatal(err)
	}
	return dir, analysis, comparison
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

func TestOneNamePerFigure(t *testing.T) {
	dir, analysis, comparison := namesFixture(t)
	all := map[string]bool{}
	for _, set := range []struct {
		csvDir string
		doc    any
	}{{"acsv", analysis}, {"ccsv", comparison}} {
		files, _ := filepath.Glob(filepath.Join(dir, set.csvDir, "*.csv"))
		for _, f := range files {
			table := strings.TrimSuffix(filepath.Base(f), ".csv")
			key := table
			if set.csvDir == "acsv" && table == "shapes" {
				key = "shapes_analyze"
			}
			sources, ok := tableSources[key]
			if !ok {
				t.Errorf("%s: table %s has no JSON source in tableSources", f, table)
				continue
			}
			names, piv := jsonNames(set.doc, sources), pivotNames(set.doc, table)
			for _, col := range readCSV(t, f)[0] {
				all[col] = true
				if !names[col] && !piv[col] && derived[col] == "" && derived[table+"."+col] == "" {
					t.Errorf("%s/%s.csv: column %s is no name the JSON gives (%s)", set.csvDir, table, col, strings.Join(sources, ", "))
				}
			}
		}
	}
	checkLongCSV(t, filepath.Join(dir, "long.csv"), dir)
	recs, err := os.ReadFile(filepath.Join(dir, "a1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(recs, []byte("\n"))
	checkWorkbook(t, filepath.Join(dir, "review.xlsx"), comparison, first, all)
}

// checkLongCSV: the long CSV's columns are the tidy files' columns, and
// its numbers load as numbers (value), its text as text (text).
func checkLongCSV(t *testing.T, path, dir string) {
	t.Helper()
	rows := readCSV(t, path)
	for _, r := range rows[1:] {
		tidy := filepath.Join(dir, "ccsv", r[0]+".csv")
		if _, err := os.Stat(tidy); err != nil {
			t.Errorf("long CSV table %s has no tidy file", r[0])
			continue
		}
		if !slices.Contains(readCSV(t, tidy)[0], r[3]) {
			t.Errorf("long CSV: table %s column %s is not a column of %s.csv", r[0], r[3], r[0])
		}
	}
	for _, p := range csvNumbers(path, []byte(strings.Join(func() []string {
		var out []string
		for _, r := range rows {
			out = append(out, csvLine(r))
		}
		return out
	}(), "\n"))) {
		t.Error(p)
	}
}

func csvLine(r []string) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(r)
	w.Flush()
	return strings.TrimSuffix(b.String(), "\n")
}

// unitInHeader matches a workbook header's unit: " (ms)", " (tok/s)".
var unitInHeader = regexp.MustCompile(` \([^)]*\)$`)

// checkWorkbook: every header of every sheet names a figure the JSON, a
// record or the CSV names (its unit in parentheses left out, and a unit
// part of the name: delta (%) is delta_pct), or one per value of a JSON
// field (attention_busy, one column per region).
func checkWorkbook(t *testing.T, path string, doc any, records []byte, csvCols map[string]bool) {
	t.Helper()
	names := map[string]bool{}
	addAll(names, doc, nil)
	var rec any
	if err := json.Unmarshal(records, &rec); err != nil {
		t.Fatal(err)
	}
	addAll(names, rec, nil)
	var recSchema struct{ Properties map[string]any }
	if err := json.Unmarshal([]byte(mustReadFile(t, filepath.Join(schemaDir, "record.json"))), &recSchema); err != nil {
		t.Fatal(err)
	}
	for k := range recSchema.Properties { // a failed record's fields too
		names[k] = true
	}
	for c := range csvCols {
		names[c] = true
	}
	for n := range names {
		names[base(n)] = true
	}
	regions := map[string]bool{}
	for _, obj := range at(doc, []string{"gpu_time", "*", "ranks[]", "regions[]"}) {
		regions[obj.(map[string]any)["region"].(string)] = true
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, sheet := range f.GetSheetList() {
		rows, err := f.GetRows(sheet)
		if err != nil || len(rows) == 0 || sheet == "Summary" {
			continue
		}
		for _, h := range rows[0] {
			name := unitInHeader.ReplaceAllString(h, "")
			region, rest, _ := strings.Cut(name, "_")
			if h != "" && !names[name] && derived[name] == "" && derived[sheet+"."+name] == "" && !(regions[region] && names[rest]) {
				t.Errorf("workbook sheet %s: header %q names no figure of the JSON or the CSV", sheet, h)
			}
		}
	}
}

// base is a name less the part that spells its unit: sum_ns is sum,
// delta_pct delta, busy_share busy.
func base(name string) string {
	parts := strings.Split(name, "_")
	out := parts[:0:0]
	for _, p := range parts {
		if p != "ns" && p != "pct" && p != "share" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "_")
}

// addAll collects every key of doc, nested keys also joined by "_".
func addAll(out map[string]bool, v any, prefix []string) {
	switch x := v.(type) {
	case map[string]any:
		for k, y := range x {
			p := append(slices.Clone(prefix), k)
			for i := range p {
				out[strings.Join(p[i:], "_")] = true
			}
			if len(p) < 7 {
				addAll(out, y, p)
			}
		}
	case []any:
		for _, y := range x {
			addAll(out, y, prefix)
		}
	}
}

func mustReadFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
