package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/servecmp/servecmp/servesim"
)

// schemaDir holds the JSON Schema files of every output (docs/schema).
var schemaDir, _ = filepath.Abs(filepath.Join("..", "..", "docs", "schema"))

const schemaBase = "https://github.com/servecmp/servecmp/docs/schema/"

// compileSchemas compiles every schema file in docs/schema (draft
// 2020-12), each registered under its $id so that their references
// resolve without a network.
func compileSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	out, err := loadSchemas()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// loadSchemas is compileSchemas without a test.
func loadSchemas() (map[string]*jsonschema.Schema, error) {
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no schema files in %s: %v", schemaDir, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(fh)
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		if id, _ := doc.(map[string]any)["$id"].(string); id != schemaBase+filepath.Base(f) {
			return nil, fmt.Errorf("%s: $id %q, want %q", f, id, schemaBase+filepath.Base(f))
		}
		if err := c.AddResource(schemaBase+filepath.Base(f), doc); err != nil {
			return nil, err
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if out[name], err = c.Compile(schemaBase + filepath.Base(f)); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
	}
	return out, nil
}

// validate checks one JSON document against a schema.
func validate(sch *jsonschema.Schema, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}

// validateFile checks a JSON file, or every line of a JSON Lines file,
// against the named schema and returns the documents checked.
func validateFile(t *testing.T, schemas map[string]*jsonschema.Schema, name, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	docs := [][]byte{data}
	if strings.HasSuffix(path, ".jsonl") {
		docs = nil
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			docs = append(docs, append([]byte{}, sc.Bytes()...))
		}
	}
	for i, d := range docs {
		if err := validate(schemas[name], d); err != nil {
			t.Errorf("%s (line %d) does not match %s.json: %v", path, i+1, name, err)
		}
	}
	return docs
}

// mustRun runs servecmp in process and fails the test on a non-zero exit;
// it returns stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(t.Context(), args, &o, &e); code != 0 {
		t.Fatalf("servecmp %s: exit %d\n%s", strings.Join(args, " "), code, e.String())
	}
	return o.String()
}

// TestOutputsMatchSchemas generates every JSON output for real (a
// workload, benchmark results and records against in-process serve-sims,
// one of them failing some requests, a sweep, a check, an analysis and a
// summary of an nsystest export, and the comparison of them all) and
// validates each against docs/schema. Mutated documents that break a
// rule the schemas state (a failed request with a latency, a p-value of
// 0, an old schema name) must fail.
func TestOutputsMatchSchemas(t *testing.T) {
	schemas := compileSchemas(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	gpus := servesim.GPUSim{Count: 2, IdleWatts: 60, WattsPerSeq: 8}
	a, _ := benchServer(t, servesim.Config{EOSProb: -1, GPU: gpus})
	b, _ := benchServer(t, servesim.Config{EOSProb: -1, MaxRunning: 2, GPU: gpus})
	flaky, _ := benchServer(t, servesim.Config{EOSProb: -1, ErrorRate: 0.4, Seed: 3})

	mustRun(t, "workload", "random", "--num", "12", "--input-len", "4:8", "--output-len", "5", "--seed", "1", "--out", p("wl.jsonl"))
	validateFile(t, schemas, "workload", p("wl.jsonl"))
	for i, run := range []struct{ url, name string }{{a.URL, "a1"}, {a.URL, "a2"}, {b.URL, "b1"}, {b.URL, "b2"}} {
		load := []string{"--concurrency", "3"}
		if i >= 2 {
			load = []string{"--rate", "inf"}
		}
		mustRun(t, append([]string{"benchmark", "--url", run.url, "--workload", p("wl.jsonl"), "--out", p(run.name + ".json"),
			"--records", p(run.name + ".records.jsonl"), "--gpu-metrics-url", run.url + servesim.GPUMetricsPath}, load...)...)
	}
	mustRun(t, "benchmark", "--url", flaky.URL, "--workload", p("wl.jsonl"), "--concurrency", "2", "--out", p("flaky.json"), "--records", p("flaky.jsonl"), "--max-failed-share", "1")
	mustRun(t, "benchmark", "--url", a.URL, "--workload", p("wl.jsonl"), "--sweep-concurrency", "1,2", "--out", p("sweep.json"),
		"--gpu-metrics-url", a.URL+servesim.GPUMetricsPath, "--gpus", "1")
	mustRun(t, "check", "--a", a.URL, "--b", b.URL, "--model", "sim-model", "--workload", p("wl.jsonl"), "--out", p("check.json"))
	servingExport(t, dir, "serving.sqlite", 100, "0", "")
	os.WriteFile(p("analysis.json"), []byte(mustRun(t, "analyze", "--format", "json", p("serving.sqlite"))), 0o644)
	mustRun(t, "analyze", "--save", p("summary.json"), "--csv-dir", p("acsv"), p("serving.sqlite"))
	assertTidyDir(t, p("acsv"))
	cmp := mustRun(t, "compare", "--a", p("a[12].json"), "--b", p("b*.json"), "--records-a", p("a1.records.jsonl"), "--records-a", p("a2.records.jsonl"),
		"--records-b", p("b?.records.jsonl"), "--profile-a", p("analysis.json"), "--profile-b", p("summary.json"), "--check", p("check.json"),
		"--intentional", "resources", "--intentional", "load", "--format", "json", "--csv-dir", p("csv"))
	os.WriteFile(p("compare.json"), []byte(cmp), 0o644)

	for _, f := range []struct{ schema, path string }{
		{"result", "a1.json"}, {"result", "b1.json"}, {"result", "flaky.json"}, {"result", "sweep.json"},
		{"record", "a1.records.jsonl"}, {"record", "b2.records.jsonl"}, {"record", "flaky.jsonl"},
		{"check", "check.json"}, {"analysis", "analysis.json"}, {"analysis", "summary.json"}, {"compare", "compare.json"},
	} {
		validateFile(t, schemas, f.schema, p(f.path))
	}
	assertCompared(t, cmp)
	assertTied(t, p)
	assertRecordsFailed(t, schemas, p("flaky.jsonl"))
	assertTidyDir(t, p("csv"))

	for _, bad := range []struct{ schema, path, from, to string }{
		{"compare", "compare.json", `"p_value": `, `"p_value": 0, "x": `},
		{"compare", "compare.json", `"name": "ttft_ms_p50"`, `"name": "ttft_ms.p50"`},
		{"compare", "compare.json", `"outcome": "`, `"outcome": "x`},
		{"compare", "compare.json", `"sentence": "`, `"reason": "`},
		{"result", "a1.json", `"servecmp.result/2"`, `"servecmp.result/1"`},
		{"result", "a1.json", `"ended_at"`, `"ended"`},
		{"check", "check.json", `"started_at": "`, `"started_at": "yesterday `},
		{"result", "a1.json", `"run_id": "`, `"run_id": "x`},
		{"result", "a1.json", `"source": "counter"`, `"source": "guess"`},
		{"result", "sweep.json", `"mean_power_w": `, `"mean_power_w": -`},
		{"compare", "compare.json", `"side": "a"`, `"side": "c"`},
		{"workload", "wl.jsonl", `"requests":12}`, `"requests":0}`},
		{"record", "a1.records.jsonl", `"servecmp.record/2"`, `"servecmp.record/1"`},
		{"record", "a1.records.jsonl", `"run_id"`, `"run"`},
	} {
		data, _ := os.ReadFile(p(bad.path))
		doc := strings.Replace(string(data), bad.from, bad.to, 1)
		if strings.HasSuffix(bad.path, ".jsonl") {
			doc, _, _ = strings.Cut(doc, "\n")
		}
		if doc == string(data) || validate(schemas[bad.schema], []byte(doc)) == nil {
			t.Errorf("%s with %s → %s still matches %s.json", bad.path, bad.from, bad.to, bad.schema)
		}
	}
}

// assertCompared: the comparison read the files the patterns named.
func assertCompared(t *testing.T, out string) {
	t.Helper()
	var rep struct {
		RunsA    []string `json:"runs_a"`
		RunsB    []string `json:"runs_b"`
		RunTimes []struct {
			StartedAt string `json:"started_at"`
			EndedAt   string `json:"ended_at"`
		} `json:"run_times"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.RunsA) != 2 || len(rep.RunsB) != 2 || len(rep.RunTimes) != 4 || rep.RunTimes[0].EndedAt == "" {
		t.Errorf("compare read runs %v and %v, times %v", rep.RunsA, rep.RunsB, rep.RunTimes)
	}
}

// assertTied: every records line carries its result's run id and
// workload, and compare refuses records given to the wrong side.
func assertTied(t *testing.T, p func(string) string) {
	t.Helper()
	var res struct {
		RunID    string `json:"run_id"`
		Workload struct {
			SHA256 string `json:"sha256"`
		} `json:"workload"`
	}
	data, _ := os.ReadFile(p("b2.json"))
	if err := json.Unmarshal(data, &res); err != nil || res.RunID == "" {
		t.Fatalf("b2.json has no run id: %v", err)
	}
	recs, _ := os.ReadFile(p("b2.records.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(recs)), "\n")
	if want := `","run_id":"` + res.RunID + `","workload_sha256":"` + res.Workload.SHA256 + `"`; len(lines) < 12 ||
		strings.Count(string(recs), want) != len(lines) {
		t.Errorf("not every line of b2.records.jsonl carries %s:\n%.400s", want, recs)
	}
	var o, e bytes.Buffer
	code := run(t.Context(), []string{"compare", "--a", p("a1.json"), "--b", p("b1.json"), "--records-a", p("b1.records.jsonl"),
		"--records-b", p("a1.records.jsonl")}, &o, &e)
	if want := "--records-a " + p("b1.records.jsonl") + " holds the records of --b " + p("b1.json") + ": swapped?"; code != 1 || !strings.Contains(e.String(), want) {
		t.Errorf("swapped records: exit %d, stderr %q, want 1 and %q", code, e.String(), want)
	}
}

// assertRecordsFailed: the flaky engine's failures are in the records,
// with null latencies (the schema's rule, checked above, applies to them).
func assertRecordsFailed(t *testing.T, schemas map[string]*jsonschema.Schema, path string) {
	t.Helper()
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte(`"ok":false`)) || !bytes.Contains(data, []byte(`"ttft_ms":null`)) {
		t.Fatalf("%s has no failed request with a null TTFT:\n%.600s", path, data)
	}
	line := `{"schema":"servecmp.record/2","run_id":"0123456789abcdef","workload_sha256":"` + strings.Repeat("ab", 32) + `","id":"x","step":0,"ok":false,"error_class":"http_500","scheduled_s":0,"sent_s":0,"ttft_ms":0,"e2e_ms":0,` +
		`"done_ms":1,"chunk_times_ms":null,"chunk_tokens":null,"prompt_tokens":1,"completion_tokens":0,"usage_reported":false,"finish_reason":"","requested_tokens":1}`
	if validate(schemas["record"], []byte(line)) == nil {
		t.Error("a failed record with ttft_ms 0 matches record.json")
	}
	if validate(schemas["record"], []byte(strings.ReplaceAll(line, `_ms":0,`, `_ms":null,`))) != nil {
		t.Error("a failed record with null latencies does not match record.json")
	}
}

// assertTidyDir: --csv-dir wrote one loadable table per file.
func assertTidyDir(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if len(files) < 5 {
		t.Fatalf("--csv-dir wrote %v", files)
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || len(rows) < 1 {
			t.Errorf("%s: %v", f, err)
		}
		for name, head := range map[string]string{"metrics.csv": "name,unit,a,b", "regions.csv": "rank,region,count,sum_ns"} {
			if filepath.Base(f) == name && !strings.HasPrefix(strings.Join(rows[0], ","), head) {
				t.Errorf("%s header %v, want %s…", name, rows[0], head)
			}
		}
	}
}
