package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestManifestSet(t *testing.T) {
	var m Manifest
	for _, kv := range []KV{{"engine", "vllm"}, {"gpu_count", "8"}, {"seed", "-3"}, {"kv_precision", "fp8"}, {"rack", "r7"}} {
		if err := m.Set(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	if m.Engine != "vllm" || m.GPUCount != 8 || m.Seed != -3 || m.KVPrecision != "fp8" || m.Extra["rack"] != "r7" {
		t.Fatalf("%+v", m)
	}
	if err := m.Set("gpu_count", "eight"); err == nil {
		t.Fatal("non-integer gpu_count accepted")
	}
	if _, _, err := ParseManifestArg("novalue"); err == nil {
		t.Fatal("missing = accepted")
	}
	if k, v, err := ParseManifestArg("topology=NVL8=x"); err != nil || k != "topology" || v != "NVL8=x" {
		t.Fatalf("%q %q %v", k, v, err)
	}
	keys := ManifestKeys()
	for _, want := range []string{"gpu_count", "gpu_type", "topology", "memory_limit", "compute_precision", "weight_precision",
		"kv_precision", "quantization", "attention_backend", "graph_mode", "cache_policy", "model", "checkpoint_revision", "tokenizer"} {
		if !strings.Contains(strings.Join(keys, ","), want) {
			t.Errorf("key %s missing", want)
		}
	}
}

func TestReadManifestFile(t *testing.T) {
	dir := t.TempDir()
	j := filepath.Join(dir, "m.json")
	os.WriteFile(j, []byte(`{"gpu_count": 4, "gpu_type": "H200", "graph_mode": true}`), 0o644)
	kv, err := ReadManifestFile(j)
	if err != nil || len(kv) != 3 || kv[0] != (KV{"gpu_count", "4"}) || kv[2] != (KV{"graph_mode", "true"}) {
		t.Fatalf("%v %v", kv, err)
	}
	p := filepath.Join(dir, "m.txt")
	os.WriteFile(p, []byte("# c\n\nquantization = awq\nbroken line\n"), 0o644)
	if _, err := ReadManifestFile(p); err == nil || !strings.Contains(err.Error(), "m.txt:4") {
		t.Fatalf("error %v does not name file:line", err)
	}
	bad := filepath.Join(dir, "b.json")
	os.WriteFile(bad, []byte(`{"x": [1]}`), 0o644)
	if _, err := ReadManifestFile(bad); err == nil {
		t.Fatal("array value accepted")
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewRecordWriter(&buf)
	in := []Record{
		{ID: "a", OK: true, ChunkTimesMs: []float64{1.5, 2.5}, ChunkTokens: []int{1, 2}, CompletionTokens: 3, UsageReported: true, FinishReason: "length"},
		{ID: "b", ErrorClass: "http_500", Error: "boom", Step: 2},
	}
	for i := range in {
		if err := w.Write(&in[i]); err != nil {
			t.Fatal(err)
		}
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n != 2 {
		t.Fatalf("%d lines", n)
	}
	// Field names are the documented ones.
	var m map[string]any
	json.Unmarshal(bytes.SplitN(buf.Bytes(), []byte("\n"), 2)[0], &m)
	for _, k := range []string{"id", "step", "ok", "scheduled_s", "sent_s", "ttft_ms", "e2e_ms", "chunk_times_ms", "chunk_tokens",
		"prompt_tokens", "completion_tokens", "usage_reported", "finish_reason"} {
		if _, ok := m[k]; !ok {
			t.Errorf("record lacks %s", k)
		}
	}
	out, err := ReadRecords(bytes.NewReader(buf.Bytes()))
	if err != nil || len(out) != 2 || out[0].ChunkTokens[1] != 2 || out[1].Step != 2 {
		t.Fatalf("%+v %v", out, err)
	}
	// A line cut by a crash: the records before it survive.
	cut := buf.Bytes()[:buf.Len()-10]
	out, err = ReadRecords(bytes.NewReader(cut))
	if err == nil || len(out) != 1 || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("%d records, %v", len(out), err)
	}
}

func TestResultJSONFields(t *testing.T) {
	b, err := json.Marshal(Result{Schema: Schema})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"schema":"servecmp.result/2"`, `"manifest"`, `"workload"`, `"load"`, `"phases"`, `"summary"`,
		`"server_metrics":null`, `"sweep":null`, `"incomplete":false`, `"warnings"`, `"requests_ok"`, `"failed_by_class"`,
		`"completion_time_s":null`, `"ttft_ms"`, `"tpot_ms"`, `"itl_ms"`, `"itl_per_token_ms"`, `"e2e_ms"`, `"send_lag_ms"`,
		`"cap_delayed"`, `"concurrency"`, `"tokens_per_chunk"`, `"length_mismatches"`, `"p99"`} {
		if !bytes.Contains(b, []byte(k)) {
			t.Errorf("result JSON lacks %s", k)
		}
	}
}

// TestManifestKeysAreTheJSONKeys keeps the explicit setters in step with
// the struct: every JSON key but extra is settable, and nothing else.
func TestManifestKeysAreTheJSONKeys(t *testing.T) {
	var want []string
	ty := reflect.TypeFor[Manifest]()
	for i := range ty.NumField() {
		if tag := strings.Split(ty.Field(i).Tag.Get("json"), ",")[0]; tag != "extra" {
			want = append(want, tag)
		}
	}
	sort.Strings(want)
	if got := ManifestKeys(); !slices.Equal(got, want) {
		t.Fatalf("ManifestKeys() = %v\nwant %v", got, want)
	}
	// Each key sets its own field: the JSON encoding shows the value
	// under that key.
	for _, k := range want {
		var m Manifest
		v := "7"
		if err := m.Set(k, v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(&m)
		var back map[string]any
		_ = json.Unmarshal(b, &back)
		if got := fmt.Sprint(back[k]); got != v {
			t.Errorf("Set(%q, 7): encoded %s = %v", k, k, back[k])
		}
	}
}
