package workload

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzImport feeds arbitrary bytes to both importers (from-jsonl and
// sharegpt): they never panic, errors are one line, and every request
// they return passes Validate.
func FuzzImport(f *testing.F) {
	f.Add([]byte(`{"prompt": "hello there", "output_len": 4}` + "\n" + `{"messages": [{"role": "user", "content": "hi"}]}`))
	f.Add([]byte(`[{"id":"x","conversations":[{"from":"human","value":"hello there friend"},{"from":"gpt","value":"hi to you too"}]}]`))
	f.Add([]byte(`{"prompt": "", "output_len": -1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(reqs []Request, err error) {
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("multi-line error %q", err)
				}
				return
			}
			for i := range reqs {
				if verr := reqs[i].Validate(); verr != nil {
					t.Fatalf("request %d fails Validate: %v", i, verr)
				}
			}
		}
		reqs, _, err := FromJSONL("f.jsonl", bytes.NewReader(data), ImportOptions{OutputLen: 0})
		check(reqs, err)
		reqs, _, err = ShareGPT("s.json", bytes.NewReader(data), ShareGPTOptions{ImportOptions: ImportOptions{OutputLen: 8}, MinLen: 1})
		check(reqs, err)
	})
}
