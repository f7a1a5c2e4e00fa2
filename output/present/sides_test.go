package present

import (
	"testing"

	"github.com/servecmp/servecmp/compare"
)

func TestSideLabels(t *testing.T) {
	same := []compare.Field{{Name: "engine", A: "llamacpp", B: "llamacpp"}, {Name: "model", A: "tiny.gguf", B: "tiny.gguf"}}
	for _, tc := range []struct {
		name     string
		contract []compare.Field
		diffs    []compare.Difference
		want     [2]string
	}{
		{"engine and model tell them apart",
			[]compare.Field{{Name: "engine", A: "vllm", B: "sglang"}, {Name: "model", A: "m", B: "m"}}, nil,
			[2]string{"A: vllm m", "B: sglang m"}},
		{"nothing known", nil, nil, [2]string{"A", "B"}},
		{"same engine and model: the declared difference, shortest name first", same, []compare.Difference{
			{Field: "manifest.extra.context_per_slot", A: "4096", B: "1024", Intentional: true},
			{Field: "manifest.extra.llamacpp_slots", A: "1", B: "4", Intentional: true},
			{Field: "manifest.gpu_type", A: "cpu", B: "x"},
		}, [2]string{"A: llamacpp tiny.gguf, llamacpp_slots 1", "B: llamacpp tiny.gguf, llamacpp_slots 4"}},
		{"a declared difference before a shorter undeclared one", same, []compare.Difference{
			{Field: "manifest.tp", A: "1", B: "2"},
			{Field: "manifest.extra.llamacpp_slots", A: "1", B: "4", Intentional: true},
		}, [2]string{"A: llamacpp tiny.gguf, llamacpp_slots 1", "B: llamacpp tiny.gguf, llamacpp_slots 4"}},
		{"a launch command: the options that differ, ports and addresses left out", same, []compare.Difference{
			{Field: "manifest.extra.launch", A: "/usr/local/bin/servecmp serve-sim --addr 127.0.0.1:28551 --model m --max-running 4",
				B: "/usr/local/bin/servecmp serve-sim --addr 127.0.0.1:28552 --model m --max-running 16"},
			{Field: "manifest.engine_detected_from", A: "props", B: "models"},
		}, [2]string{"A: llamacpp tiny.gguf, --max-running 4", "B: llamacpp tiny.gguf, --max-running 16"}},
		{"a declared difference before a launch command", same, []compare.Difference{
			{Field: "manifest.extra.launch", A: "llama-server -m tiny.gguf --port 28441 -np 1 -c 4096 -t 1 --metrics --log-file a.log",
				B: "llama-server -m tiny.gguf --port 28442 -np 4 -c 4096 -t 1 --metrics --log-file b.log"},
			{Field: "manifest.extra.llamacpp_slots", A: "1", B: "4", Intentional: true},
		}, [2]string{"A: llamacpp tiny.gguf, llamacpp_slots 1", "B: llamacpp tiny.gguf, llamacpp_slots 4"}},
		{"launch commands that differ only in where they listen, or in length, tell nothing", same, []compare.Difference{
			{Field: "manifest.extra.launch", A: "llama-server -m tiny.gguf --host 127.0.0.1 --port 28441 -np 4 -c 4096 -t 1 --metrics",
				B: "llama-server -m tiny.gguf --host 127.0.0.1 --port 28442 -np 4 -c 4096 -t 1 --metrics"},
			{Field: "manifest.extra.cmd", A: "llama-server -m tiny.gguf -np 4 -c 4096 -t 1 --metrics --no-webui --jinja",
				B: "llama-server -m tiny.gguf -np 4 -c 4096 -t 1 --metrics --no-webui"},
		}, [2]string{"A: llamacpp tiny.gguf", "B: llamacpp tiny.gguf"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SideLabels(&compare.Report{Contract: tc.contract, Differences: tc.diffs})
			if got != tc.want {
				t.Errorf("SideLabels = %q, want %q", got, tc.want)
			}
		})
	}
}
