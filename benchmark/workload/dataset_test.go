package workload

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type pqMsg struct {
	From  string `parquet:"from"`
	Value string `parquet:"value"`
}

type pqRow struct {
	ID    string  `parquet:"id"`
	Conv  []pqMsg `parquet:"conversations"`
	Limit int64   `parquet:"limit"`
}

// writeParquet builds a Parquet fixture in the test's directory.
func writeParquet[T any](t *testing.T, name string, rows []T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(f, rows); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeText(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var conv = []pqMsg{{"system", "Be brief."}, {"human", "What is two and two?"}, {"gpt", "Four, which is the answer"},
	{"human", "And three and three?"}, {"gpt", "Six"}, {"human", "Thanks"}}

func TestDatasetFormatsAgree(t *testing.T) {
	pq := writeParquet(t, "d.parquet", []pqRow{{ID: "c1", Conv: conv, Limit: 9}})
	js := writeText(t, "d.json", `[{"id":"c1","limit":9,"conversations":[{"from":"system","value":"Be brief."},`+
		`{"from":"human","value":"What is two and two?"},{"from":"gpt","value":"Four, which is the answer"},`+
		`{"from":"human","value":"And three and three?"},{"from":"gpt","value":"Six"},{"from":"human","value":"Thanks"}]}]`)
	jl := writeText(t, "d.jsonl", strings.TrimSuffix(strings.TrimPrefix(readFile(t, js), "["), "]")+"\n")
	var first []Request
	for _, path := range []string{pq, js, jl} {
		reqs, st, err := Dataset(path, DatasetOptions{MessagesField: "conversations", MultiTurn: true})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// The last turn has no reply and no output length: it is dropped.
		if len(reqs) != 2 || st.Kept != 2 {
			t.Fatalf("%s: %d requests: %+v", path, len(reqs), reqs)
		}
		r0, r1 := reqs[0], reqs[1]
		if r0.Session != "c1" || r0.Turn != 0 || r1.Turn != 1 || r0.ID != "c1/t0" || len(r0.Messages) != 2 ||
			r0.Messages[0].Role != "system" || r1.Messages[0].Content != "And three and three?" {
			t.Fatalf("%s: turns %+v", path, reqs)
		}
		if r0.MaxTokens != ApproxTokens("Four, which is the answer") || r1.MaxTokens != 1 {
			t.Errorf("%s: max_tokens %d %d", path, r0.MaxTokens, r1.MaxTokens)
		}
		if first == nil {
			first = reqs
		} else if r0.Messages[1] != first[0].Messages[1] {
			t.Errorf("%s differs from the Parquet import", path)
		}
		if err := Validate(reqs); err != nil {
			t.Fatal(err)
		}
	}
	reqs, _, err := Dataset(pq, DatasetOptions{MessagesField: "conversations", MultiTurn: true, OutputLenField: "limit"})
	if err != nil || len(reqs) != 3 || reqs[2].MaxTokens != 9 {
		t.Fatalf("with --output-len-field: %v %+v", err, reqs)
	}
}

func TestDatasetPromptField(t *testing.T) {
	type row struct {
		Question string `parquet:"question"`
		N        int32  `parquet:"n"`
	}
	pq := writeParquet(t, "q.parquet", []row{{"Why is the sky blue?", 40}, {"", 3}, {"Name a prime.", 5}})
	reqs, st, err := Dataset(pq, DatasetOptions{PromptField: "question", OutputLenField: "n", PromptKind: KindText})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || st.Skipped["empty prompt"] != 1 || reqs[0].Prompt != "Why is the sky blue?" || reqs[0].MaxTokens != 40 || reqs[1].ID != "d3" {
		t.Fatalf("%+v %+v", reqs, st)
	}
	tok := sharedTokenizer(t, "hf/llama3/tokenizer.json")
	reqs, _, err = Dataset(pq, DatasetOptions{PromptField: "question", OutputLenField: "n", ImportOptions: ImportOptions{Tokenizer: tok}})
	if err != nil || reqs[0].InputLen != tok.Count("Why is the sky blue?") || reqs[0].Messages[0].Role != "user" {
		t.Fatalf("%v %+v", err, reqs)
	}
}

func TestDatasetErrorsNameFileAndField(t *testing.T) {
	pq := writeParquet(t, "d.parquet", []pqRow{{ID: "c1", Conv: conv}})
	js := writeText(t, "d.jsonl", `{"text":"hi","n":3}`+"\n")
	arr := writeText(t, "a.json", `[{"messages":[{"speaker":"user","text":"hi"}]}]`)
	for _, tc := range []struct {
		path string
		opts DatasetOptions
		want []string
	}{
		{pq, DatasetOptions{PromptField: "question"}, []string{pq, `no field "question"`, "conversations"}},
		{pq, DatasetOptions{MessagesField: "conversations", OutputLenField: "max"}, []string{pq, `"max"`}},
		{js, DatasetOptions{PromptField: "prompt"}, []string{js, "record 1", `no field "prompt"`, "n, text"}},
		{js, DatasetOptions{}, []string{js, "--prompt-field"}},
		{arr, DatasetOptions{}, []string{arr, "messages[0]", "role or from"}},
		{arr, DatasetOptions{RoleKey: "speaker"}, []string{arr, "content or value"}},
		{writeText(t, "x.csv", "a,b\n"), DatasetOptions{}, []string{"x.csv", "unknown dataset format"}},
		{writeText(t, "bad.parquet", "PAR1 not really"), DatasetOptions{PromptField: "p"}, []string{"bad.parquet", "Parquet"}},
	} {
		_, _, err := Dataset(tc.path, tc.opts)
		if err == nil {
			t.Errorf("%s %+v: no error", tc.path, tc.opts)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.path, err, w)
			}
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParquetBadFooter is the case: a small Parquet file whose
// footer claims 2 GiB of metadata is refused with one line naming the
// file, before the library allocates what it claims.
func TestParquetBadFooter(t *testing.T) {
	type row struct {
		Question string `parquet:"question"`
	}
	pq := writeParquet(t, "q.parquet", []row{{"Why is the sky blue?"}})
	good, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"footer 2 GiB", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[len(b)-8:], 0x7ffffff0); return b }, "bad footer"},
		{"footer 1 byte past", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[len(b)-8:], uint32(len(b)-11)); return b }, "bad footer"},
		{"no end magic", func(b []byte) []byte { return b[:len(b)-1] }, "no PAR1 magic at the end"},
		{"tiny", func(b []byte) []byte { return b[:8] }, "too short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.parquet")
			os.WriteFile(p, tc.edit(append([]byte{}, good...)), 0o644)
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, _, err := Dataset(p, DatasetOptions{PromptField: "question", ImportOptions: ImportOptions{OutputLen: 4}})
			runtime.ReadMemStats(&m1)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v, want %q naming the file", err, tc.want)
			}
			if grown := m1.TotalAlloc - m0.TotalAlloc; grown > 16<<20 {
				t.Errorf("allocated %d MiB for a %d-byte file", grown>>20, len(good))
			}
		})
	}
}

// TestDatasetNumBounded: --num keeps a seeded sample of that many usable
// records, in a seeded order, holding no more than that many while the
// file streams; the same seed gives the same requests.
func TestDatasetNumBounded(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, `{"id":"r%d","prompt":"question %d","n":4}`+"\n", i, i)
	}
	b.WriteString(`{"id":"empty","prompt":"","n":4}` + "\n")
	p := filepath.Join(t.TempDir(), "d.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o644)
	opts := DatasetOptions{PromptField: "prompt", OutputLenField: "n", Num: 10}
	opts.Seed = 7
	a, st, err := Dataset(p, opts)
	if err != nil || len(a) != 10 || st.Read != 1001 || st.Skipped["empty prompt"] != 1 {
		t.Fatalf("%d requests, stats %+v, %v", len(a), st, err)
	}
	again, _, _ := Dataset(p, opts)
	ids := func(rs []Request) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.ID)
		}
		return strings.Join(s, " ")
	}
	if ids(a) != ids(again) {
		t.Errorf("same seed, different sample: %s / %s", ids(a), ids(again))
	}
	if first := ids(a); strings.HasPrefix(first, "r0 r1 r2") {
		t.Errorf("not a random sample: %s", first)
	}
	s := &sample{n: 3}
	for k := range uint64(100) {
		s.offer(100-k, []Request{{ID: fmt.Sprint(k)}})
		if len(s.keep) > 3 {
			t.Fatalf("sample holds %d", len(s.keep))
		}
	}
	if got := ids(s.requests()); got != "99 98 97" {
		t.Errorf("smallest keys first: %s", got)
	}
}

// TestDatasetNoUsableSaysWhy: when nothing is kept, the error gives the
// reasons records were skipped.
func TestDatasetNoUsableSaysWhy(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.jsonl")
	os.WriteFile(p, []byte(`{"prompt":""}`+"\n"+`{"prompt":"  "}`+"\n"), 0o644)
	_, _, err := Dataset(p, DatasetOptions{PromptField: "prompt", ImportOptions: ImportOptions{OutputLen: 4}})
	if err == nil || !strings.Contains(err.Error(), "no usable records: 2 read, skipped: 2 empty prompt") {
		t.Fatalf("error %v", err)
	}
}

// TestDatasetLineBound: a JSONL line over the bound is an error naming
// the file and line, not a buffer grown without end.
func TestDatasetLineBound(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"prompt":"ok"}` + "\n")
	br := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", 300)+"\n"), 16)
	if _, err := readLine(br, 256); err == nil || !strings.Contains(err.Error(), "longer than 256 bytes") {
		t.Fatalf("readLine: %v", err)
	}
	br = bufio.NewReaderSize(strings.NewReader("abc\ndef"), 16)
	if l, err := readLine(br, 256); err != nil || string(l) != "abc\n" {
		t.Fatalf("%q %v", l, err)
	}
	if l, err := readLine(br, 256); err != io.EOF || string(l) != "def" {
		t.Fatalf("%q %v", l, err)
	}
}

// FuzzParquetFrame: any bytes as a Parquet file end in a result or a
// one-line error, never a panic or an allocation beyond the file's
// reach.
func FuzzParquetFrame(f *testing.F) {
	type row struct {
		Question string `parquet:"question"`
	}
	var buf bytes.Buffer
	parquet.Write(&buf, []row{{"Why?"}, {"How?"}})
	f.Add(buf.Bytes())
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.parquet")
		os.WriteFile(p, data, 0o644)
		_, _, err := Dataset(p, DatasetOptions{PromptField: "question", ImportOptions: ImportOptions{OutputLen: 4}})
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
