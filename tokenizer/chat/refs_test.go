package chat

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const refsDir = "../../../shared/testdata/tokenizers/templates-refs"

// refCase is one reference rendering (templates-refs/README.md).
type refCase struct {
	Template string           `json:"template"`
	Case     string           `json:"case"`
	Messages []map[string]any `json:"messages"`
	AddGen   bool             `json:"add_generation_prompt"`
	BOS      string           `json:"bos_token"`
	EOS      string           `json:"eos_token"`
	UNK      string           `json:"unk_token"`
	PAD      string           `json:"pad_token"`
	Rendered *string          `json:"rendered"`
	Error    *string          `json:"error"`
}

// TestTemplateReferences renders every bundled template on the six cases
// of its reference file and compares byte for byte; a case the reference
// raises on must raise with the same message.
func TestTemplateReferences(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(refsDir, "*.jsonl"))
	if len(files) == 0 {
		t.Skip("shared template references absent")
	}
	matched := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		ok := t.Run(name, func(t *testing.T) {
			tp, err := ParseFile(filepath.Join(templatesDir, name+".jinja"))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range readRefCases(t, f) {
				msgs := make([]any, len(c.Messages))
				for i, m := range c.Messages {
					msgs[i] = newDict(m)
				}
				got, err := tp.RenderVars(map[string]any{"messages": msgs, "add_generation_prompt": c.AddGen,
					"bos_token": c.BOS, "eos_token": c.EOS, "unk_token": c.UNK, "pad_token": c.PAD}, FixedNow)
				switch {
				case c.Error != nil:
					if err == nil || !strings.HasSuffix(err.Error(), refMessage(*c.Error)) {
						t.Errorf("%s: error %v, want %q", c.Case, err, *c.Error)
					}
				case err != nil:
					t.Errorf("%s: %v", c.Case, err)
				case got != *c.Rendered:
					t.Errorf("%s:\n got %q\nwant %q", c.Case, got, *c.Rendered)
				}
			}
		})
		if ok {
			matched++
		}
	}
	t.Logf("%d/%d templates match their references", matched, len(files))
}

// refMessage is the message of a reference error without its Python
// exception class.
func refMessage(e string) string {
	if i := strings.Index(e, ": "); i >= 0 {
		return e[i+2:]
	}
	return e
}

func readRefCases(t *testing.T, path string) []refCase {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []refCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var c refCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}
