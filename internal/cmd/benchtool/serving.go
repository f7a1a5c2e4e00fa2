//go:build unix

package main

import (
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

// servingSteps is how many eager serving steps the serving benchmark
// export holds: about 420 device ops each with 32 layers, so about
// 1,000,000 kernels, each with its cudaLaunchKernel row.
const servingSteps = 2188

// writeServingExport writes the serving benchmark export: one vLLM-style
// rank (32 dense layers, FlashAttention 3) running one prefill and then
// eager decode steps, every kernel launched through the CUDA runtime API
// and every step inside an NVTX step range, as a serving capture carries
// them.
func writeServingExport(path string) error {
	b, _ := nsystest.Serving(nsystest.ServingOptions{Layers: 32, Decode: servingSteps - 1, StepNVTX: true,
		SideStream: true})
	b.HighBits(0) // the floor query sums globalPid; real high bits would overflow it
	return b.WriteFile(path)
}
