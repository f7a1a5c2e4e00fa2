package flagopts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
)

func TestOutputSampling(t *testing.T) {
	o := Output{Temperature: 0.7, TopP: 0.9, TopK: 40}
	s := o.Sampling()
	if s.Temperature == nil || *s.Temperature != 0.7 || s.TopP != nil || s.TopK != nil {
		t.Errorf("nothing given: %+v, want the temperature alone", s)
	}
	o.Changed = func(name string) bool { return name == "top-k" }
	if s = o.Sampling(); s.TopP != nil || s.TopK == nil || *s.TopK != 40 {
		t.Errorf("--top-k given: %+v, want top_k alone added", s)
	}
}

func TestOutputValidate(t *testing.T) {
	dir := t.TempDir()
	in, old := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "old.jsonl")
	for _, p := range []string{in, old} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		o    Output
		flag bool   // a usage error
		want string // "" for none
	}{
		{"missing", Output{}, true, "--out is required"},
		{"input", Output{Path: in}, true, "--out"},
		{"exists", Output{Path: old}, false, "frozen"},
		{"force", Output{Path: old, Force: true}, false, ""},
		{"stdout", Output{Path: workload.Stdout}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate(in)
			var fe *cli.UsageError
			if (err == nil) != (tc.want == "") || (err != nil && (!strings.Contains(err.Error(), tc.want) || errors.As(err, &fe) != tc.flag)) {
				t.Errorf("Validate: %v (usage error %v); want %q, usage error %v", err, errors.As(err, &fe), tc.want, tc.flag)
			}
		})
	}
}

func TestOutputImports(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.jsonl")
	if err := os.WriteFile(src, []byte(`{"prompt":"hello there","output_len":8}`+"\n"+`{"prompt":"and again","output_len":4}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "w.jsonl")
	var stdout, log bytes.Buffer
	o := Output{Path: out, FixedLength: true, Temperature: 0}
	if err := o.ImportJSONL(&stdout, &log, src, workload.ImportOptions{OutputLen: 16}); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Load(out)
	if err != nil || len(w.Requests) != 2 || w.Requests[0].MaxTokens != 16 || !w.Requests[0].FixedLength {
		t.Fatalf("imported %+v (%v), want 2 fixed-length requests of max_tokens 16", w, err)
	}
	if !strings.Contains(log.String(), "read 2 records, kept 2") || !strings.Contains(stdout.String(), "workload: 2 requests") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), log.String())
	}
	o.Path = filepath.Join(dir, "w2.jsonl")
	var fe *cli.UsageError
	if err := o.ImportJSONL(&stdout, &log, src, workload.ImportOptions{OutputLen: -1}); !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "--output-len: ") {
		t.Errorf("negative output length: %v, want a usage error naming --output-len", err)
	}
	if err := o.ImportDataset(&stdout, &log, src, workload.DatasetOptions{Num: -1}); !errors.As(err, &fe) {
		t.Errorf("negative --num: %v, want a usage error", err)
	}
	sg := filepath.Join(dir, "sg.json")
	conv := `[{"id":"a","conversations":[{"from":"human","value":"hello there friend"},{"from":"gpt","value":"hi, how can I help you today"}]}]`
	if err := os.WriteFile(sg, []byte(conv), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	var warned []string
	o.Path = filepath.Join(dir, "w3.jsonl")
	err = o.ImportShareGPT(&stdout, &log, sg, workload.ShareGPTOptions{Num: 5}, func(w ...string) {
		if !strings.Contains(log.String(), "read 1 records") {
			t.Errorf("warned before the stats report: %q", log.String())
		}
		warned = append(warned, w...)
	})
	if err != nil || len(warned) != 1 || !strings.Contains(warned[0], "asked for 5 conversations, only 1 usable") {
		t.Errorf("sharegpt: %v, warnings %q", err, warned)
	}
	if w, err := workload.Load(o.Path); err != nil || len(w.Requests) != 1 {
		t.Errorf("sharegpt workload: %v", err)
	}
}

func TestOutputRandom(t *testing.T) {
	var stdout, log bytes.Buffer
	o := Output{Path: workload.Stdout}
	in, _ := workload.ParseLength("4")
	outLen, _ := workload.ParseLength("2")
	spec := workload.RandomSpec{Num: 3, InputLen: in, OutputLen: outLen, Vocab: workload.DefaultVocab}
	if err := o.Random(context.Background(), &stdout, &log, spec, "", ""); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout.String(), "\n"); n != 4 || !strings.Contains(log.String(), "(stdout)") { // the header and 3 requests
		t.Errorf("%d lines on stdout, stderr %q; want the header, 3 requests and the summary on stderr", n, log.String())
	}
	var fe *cli.UsageError
	if err := o.Random(context.Background(), &stdout, &log, spec, "text", ""); !errors.As(err, &fe) {
		t.Errorf("--prompt text without a tokenizer: %v, want a usage error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	spec.Num = 100000
	if err := o.Random(ctx, &stdout, &log, spec, "", ""); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("cancelled: %v, want interrupted", err)
	}
}

func TestTextPromptsForFlags(t *testing.T) {
	for _, tc := range []struct{ tok, prompt, tpl string }{
		{"", "text", ""}, {"", "", "x.jinja"}, {"t.json", "ids", ""}, {"t.json", "text", "x.jinja"}, {"", "words", ""},
	} {
		if _, err := TextPromptsFor(tc.tok, tc.prompt, tc.tpl); err == nil {
			t.Errorf("%+v: no error", tc)
		}
	}
	if tp, err := TextPromptsFor("", "", ""); tp != nil || err != nil {
		t.Errorf("ids default: %v %v", tp, err)
	}
}
