// Package event is the source-neutral model of one profile capture.
//
// Readers (package nsys for Nsight Systems SQLite exports, package kineto for
// PyTorch-profiler traces) produce a Capture; everything downstream works on
// these types alone and never learns which format the data came from.
//
// Units and invariants:
//   - every time is an int64 count of nanoseconds on the capture's own clock
//     (session time for nsys, the trace's clock for kineto);
//   - every interval is half-open, [Start, End), with End >= Start;
//   - strings are interned per Capture in a Names table and referred to by a
//     uint32 id, so that per-row data stays small (a rank may hold millions
//     of kernels); id 0 is the empty string;
//   - launch shapes are interned the same way in a Shapes table; id 0 means
//     "no shape" (memcpy, memset, or a source that records none).
//
// The types are plain data and are not safe for concurrent mutation; a
// Capture that is fully read may be shared by concurrent readers.
package event

import "bytes"

// Kind is the kind of a piece of device work.
type Kind uint8

// Kinds of device work.
const (
	Kernel Kind = iota + 1
	Memcpy
	Memset
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Kernel:
		return "kernel"
	case Memcpy:
		return "memcpy"
	case Memset:
		return "memset"
	}
	return "unknown"
}

// Work is one piece of device work: a kernel, a memcpy or a memset.
// Memcpy and memset rows carry synthetic names such as
// "[CUDA memcpy Host-to-Device]" and "[CUDA memset]" so that rules can match
// them like kernels.
type Work struct {
	Start, End  int64  // ns, [Start, End)
	Correlation uint64 // id of the launching host call, unique within a process; 0 = unknown
	GraphNode   int64  // CUDA-graph node id when replayed inside a graph traced per node; 0 = none
	Name        uint32 // Names id
	Shape       uint32 // Shapes id; 0 = none
	Stream      uint32 // stream id as recorded by the source
	Kind        Kind
}

// Dur is End-Start in ns.
func (w *Work) Dur() int64 { return w.End - w.Start }

// Launch is one host-side API call that launched device work (cudaLaunchKernel,
// cuLaunchKernelEx, cudaGraphLaunch, cudaMemcpyAsync...), on a host thread.
type Launch struct {
	Start, End  int64 // ns
	Correlation uint64
	TID         int64  // host thread id
	Name        uint32 // Names id of the API call
}

// RangeKind tells where a host range came from.
type RangeKind uint8

// Kinds of host ranges.
const (
	NVTX        RangeKind = iota + 1 // nsys NVTX push/pop or start/end range
	Annotation                       // profiler user annotation (record_function)
	PythonFrame                      // a python function frame of a call stack
)

// Range is a named interval on a host thread: an NVTX range, a profiler
// annotation or a python frame. Ranges on one thread nest.
type Range struct {
	Start, End int64 // ns
	TID        int64 // host thread id
	Text       uint32
	Kind       RangeKind
}

// GraphNode records the creation of a CUDA-graph node at capture or
// instantiation time. A node cloned at instantiation points back to the
// captured node through Original.
type GraphNode struct {
	Node, Original int64
	Start, End     int64 // ns
	TID            int64
}

// Shape is a launch geometry.
type Shape struct {
	Grid, Block [3]int32
}

// Rank is one (process, device) group of device work with the host activity
// of the same process. A rank's slices are in no particular order.
type Rank struct {
	Source string // input file path
	Format Format
	PID    int64
	Device int32
	// Label is the rank's display label and LabelFrom where it came from
	// ("user", "env:RANK", ..., "trace:distributedInfo.rank" or "default").
	// Readers leave both empty; package analysis decides them, in one
	// place, from the user's LABEL and the capture's CapturedRank.
	Label       string
	LabelFrom   string
	GPU         string // GPU name, "" when unknown
	Host        string
	ToolVersion string // profiler version, "" when unknown
	Process     string // process name, "" when unknown

	Work       []Work
	Launches   []Launch    // launches of this process (all threads)
	Ranges     []Range     // host ranges of this process
	GraphNodes []GraphNode // graph-node creation events of this process

	// Span is the capture span in ns: the first and last timestamps of any
	// recorded activity. It bounds the default window.
	SpanStart, SpanEnd int64

	Names  *Names
	Shapes *Shapes
}

// Format names an input format.
type Format string

// Input formats.
const (
	NSys   Format = "nsys"   // Nsight Systems SQLite export
	Kineto Format = "kineto" // PyTorch-profiler (Kineto) trace, plain or gzip JSON
)

// SQLiteMagic starts every SQLite database file.
var SQLiteMagic = []byte("SQLite format 3\x00")

// IsGzip reports whether head starts with the gzip magic (1f 8b).
func IsGzip(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }

// SniffFormat tells the format from head, the first bytes of a file: the
// SQLite header means NSys; the gzip magic, or a JSON object or array
// start after an optional byte-order mark and white space, means Kineto.
// It returns "" when head matches neither.
func SniffFormat(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, SQLiteMagic):
		return NSys
	case IsGzip(head):
		return Kineto
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return Kineto
	}
	return ""
}

// Capture is everything read from one input file.
type Capture struct {
	Path        string
	Format      Format
	ToolVersion string
	Host        string
	// GraphTraceMode is "graph" when CUDA graphs were traced whole (kernels
	// inside graphs missing), "node" when traced per node, "" when unknown.
	GraphTraceMode string
	// SessionStart is the capture time (ns) that a user's --window counts
	// from: 0 when the clock already counts from the session start (nsys),
	// else the first timestamp of the capture, set by the reader (kineto).
	SessionStart int64
	Env          map[string]string // captured environment of the profiled process; may be nil
	Ranks        []*Rank
	Names        *Names
	Shapes       *Shapes
	// Warnings are counted repairs and caveats found while reading, such as
	// dropped rows with end < start. They are data, not errors.
	Warnings []string
	// CapturedRank is the rank number the capture records for its
	// profiled process, as text ("" when none), and CapturedRankFrom
	// where it was found ("env:RANK", "trace:distributedInfo.rank").
	// A raw fact: it names the capture's one process, so it says nothing
	// about which rank is which when the capture holds several.
	CapturedRank, CapturedRankFrom string
}

// Options selects what a reader loads besides device work.
type Options struct {
	Launches   bool // host launch calls (needed for NVTX projection)
	Ranges     bool // NVTX ranges, annotations, python frames
	GraphNodes bool // CUDA-graph node creation events
	// LaunchesOnlyWithContext loads launches only for processes that have
	// host ranges or graph-node events: launches serve to project those
	// onto device work, and without them a reader may skip the (large)
	// launch table.
	LaunchesOnlyWithContext bool
}

// All loads everything.
var All = Options{Launches: true, Ranges: true, GraphNodes: true}

// Context loads what context attribution can use, and no more.
var Context = Options{Launches: true, Ranges: true, GraphNodes: true, LaunchesOnlyWithContext: true}
