package classify

import "github.com/servecmp/servecmp/rules"

// Method is how a piece of device work got its region, in order of trust.
type Method uint8

// Methods of attribution.
const (
	Unmapped   Method = iota // nothing placed it; its region is Other
	ByName                   // a name rule matched
	ByNVTX                   // an NVTX range / annotation / python frame open on the launching thread
	ByGraph                  // a CUDA-graph node linked to the ranges open at capture
	ByPosition               // its place on the stream between unambiguous anchors
	NumMethods = 5
)

// String returns the method's report name: unmapped, name, nvtx, graph, position.
func (m Method) String() string {
	switch m {
	case ByName:
		return "name"
	case ByNVTX:
		return "nvtx"
	case ByGraph:
		return "graph"
	case ByPosition:
		return "position"
	}
	return "unmapped"
}

// Label is the attribution of one piece of device work.
type Label struct {
	Region rules.Region
	Method Method
	Rule   int32 // index into the rule set's Rules, -1 for none
}
