package workload

import (
	"os"
	"path/filepath"
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
