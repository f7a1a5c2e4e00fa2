package classify

import (
	"fmt"
	"strings"

	"github.com/servecmp/servecmp/event"
)

// HintMinShare is the unmapped share of device time from which Hints speaks.
const HintMinShare = 0.01

// Hints returns, for a rank whose labels leave at least HintMinShare of its
// device time Unmapped, the capture options that would let context
// attribution place it, one line each, most useful first; otherwise nil.
func Hints(rank *event.Rank, labels []Label) []string {
	var unmapped, total, graphWork int64
	hostPlaced := false
	for i := range rank.Work {
		if i >= len(labels) {
			break
		}
		d := rank.Work[i].Dur()
		total += d
		if m := labels[i].Method; m == ByNVTX || m == ByGraph {
			hostPlaced = true
		}
		if labels[i].Method == Unmapped {
			unmapped += d
			if rank.Work[i].GraphNode != 0 {
				graphWork += d
			}
		}
	}
	// Below HintMinShare the unmapped work is shown in the coverage table
	// but not worth a capture change.
	if total == 0 || float64(unmapped) < HintMinShare*float64(total) {
		return nil
	}
	var nvtx, frames bool
	for i := range rank.Ranges {
		switch rank.Ranges[i].Kind {
		case event.NVTX, event.Annotation:
			nvtx = true
		case event.PythonFrame:
			frames = true
		}
	}
	graphLaunches := 0
	if rank.Names != nil {
		// Launches per name id first: a rank has few distinct API names.
		perName := make([]int, rank.Names.Len())
		for i := range rank.Launches {
			if id := rank.Launches[i].Name; int(id) < len(perName) {
				perName[id]++ // an id past the table names nothing
			}
		}
		for id, n := range perName {
			if n > 0 && strings.Contains(rank.Names.Name(uint32(id)), "GraphLaunch") {
				graphLaunches += n
			}
		}
	}
	share := 100 * float64(unmapped) / float64(total)
	var h []string
	if len(rank.Launches) == 0 && (nvtx || frames) {
		h = append(h, fmt.Sprintf("%.1f%% of device time is unmapped and no launch calls were loaded: capture with nsys --trace=cuda,nvtx (or torch.profiler with with_stack=True) so kernels can be joined to host ranges", share))
	}
	const markers = "the engine's layer markers (vLLM --enable-layerwise-nvtx-tracing, SGLang --enable-layerwise-nvtx-marker), which name the module of every GEMM and norm"
	switch {
	case !nvtx && !frames:
		h = append(h, fmt.Sprintf("%.1f%% of device time is unmapped and the capture has no NVTX ranges: add --trace=cuda,nvtx and %s", share, markers))
	case !hostPlaced:
		h = append(h, fmt.Sprintf("%.1f%% of device time is unmapped and no host range names a model module: capture with %s, or pass --rules-add with nvtx rules for the ranges you have", share, markers))
	}
	if graphWork > 0 && len(rank.GraphNodes) == 0 {
		h = append(h, fmt.Sprintf("%.1f%% of device time is unmapped work replayed in CUDA graphs without node-creation events: a capture with nsys --cuda-graph-trace=node and --trace=cuda,nvtx records CUDA_GRAPH_NODE_EVENTS, which link each node to the NVTX ranges open at capture", 100*float64(graphWork)/float64(total)))
	}
	if graphLaunches > 0 && !hasGraphWork(rank) {
		h = append(h, "CUDA graphs were launched but their kernels are missing (graphs traced whole): capture with nsys --cuda-graph-trace=node")
	}
	if len(h) == 0 {
		h = append(h, fmt.Sprintf("%.1f%% of device time is unmapped: run analyze --explain to list the kernels; a rule file passed with --rules-add can name them or map the NVTX ranges open at their launch", share))
	}
	return h
}

func hasGraphWork(rank *event.Rank) bool {
	for i := range rank.Work {
		if rank.Work[i].GraphNode != 0 {
			return true
		}
	}
	return false
}
