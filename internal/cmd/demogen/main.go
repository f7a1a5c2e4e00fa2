// Command demogen writes the two synthetic demo exports of testdata/demo:
// vllm-like.sqlite and sglang-like.sqlite, small serving-like Nsight
// Systems SQLite exports made with nsystest.Serving (see
// testdata/demo/README.md). The output is deterministic.
//
//	go run ./internal/cmd/demogen            # writes testdata/demo/*.sqlite
//	go run ./internal/cmd/demogen -out DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

// Demo is one demo export.
type Demo struct {
	File string
	Opts nsystest.ServingOptions
}

// Demos lists the demo exports.
var Demos = []Demo{
	{"vllm-like.sqlite", nsystest.ServingOptions{
		Engine: nsystest.EngineFA3, TP: 2, Layers: 6, Prefill: 2, Decode: 12,
		Graphs: true, NodeEvents: true, LayerNVTX: true, StepNVTX: true, SideStream: true, Seed: 1, PIDBase: 52100,
	}},
	{"sglang-like.sqlite", nsystest.ServingOptions{
		Engine: nsystest.EngineFlashInfer, MoE: true, TP: 2, Layers: 6, Prefill: 2, Decode: 12,
		Graphs: true, StepNVTX: true, SideStream: true, Seed: 2, PIDBase: 61300,
	}},
}

// Write writes every demo export into dir, replacing existing files of
// the same names.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range Demos {
		path := filepath.Join(dir, d.File)
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		b, _ := nsystest.Serving(d.Opts)
		if err := b.WriteFile(path); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	out := flag.String("out", filepath.Join("testdata", "demo"), "output directory")
	flag.Parse()
	if err := Write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "demogen:", err)
		os.Exit(1)
	}
}
