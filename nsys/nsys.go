// Package nsys reads Nsight Systems SQLite exports (nsys 2021 to 2025) into
// the source-neutral event model.
//
// It is the only package that knows the export's SQL schema. The schema is
// probed once per file (sqlite_master and table_info) and every query
// selects columns by name, so columns inserted between versions
// (mangledName, greenContextId...) and renamed tables (EXPORT_META_DATA →
// META_DATA_EXPORT) are handled by detection, not by version numbers.
//
// Units and invariants of the result (see package event):
//   - times are int64 ns on the export's session timeline, as stored;
//   - device work (kernels, memcpy, memset) with NULL times, end < start,
//     or start = end = 0 is dropped and counted in Capture.Warnings;
//   - a rank is one (process, deviceId) pair with device work; the
//     launches, NVTX ranges and graph-node events of a process are shared
//     (same slice) by all ranks of that process;
//   - the launches of a process are in correlation order;
//   - process id = (globalPid >> 24) & 0xFFFFFF, thread id = globalTid &
//     0xFFFFFF;
//   - strings are resolved through StringIds once per distinct id.
//
// Large tables (device work, CUDA API calls, NVTX ranges) are read over
// rowid ranges by several workers at once (Config.Workers, one per core
// up to maxWorkers), into one pre-sized slice that is then partitioned in
// place per rank; the result does not depend on the number of workers.
// With ReadWith and Config.File they are read straight from the file's
// pages (package nsys/internal/pagescan, pure Go), each worker through a
// read-only handle of its own; a table that scanner cannot read exactly
// as SQLite would is read through SQLite handles of the reader's own in
// builds with cgo on Linux or macOS (package nsys/internal/fastscan), and
// otherwise, as by Read, through the caller's database/sql pool, with any
// driver.
package nsys

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/servecmp/servecmp/event"
)

// ErrNoKernels means the export has no kernel table at all.
var ErrNoKernels = errors.New("no CUPTI_ACTIVITY_KIND_KERNEL table: the capture recorded no kernels (was CUDA tracing on, did the run reach the GPU?)")

// noWorkError is returned when the kernel table exists but no valid
// device work was read; it matches ErrNoKernels with errors.Is.
type noWorkError struct{ rows string }

func (e noWorkError) Error() string {
	return "CUPTI_ACTIVITY_KIND_KERNEL holds no valid kernel (" + e.rows + "): the capture recorded no GPU work"
}

func (noWorkError) Is(target error) bool { return target == ErrNoKernels }

// UnnamedKernel names a kernel whose name ids are NULL or missing from
// StringIds.
const UnnamedKernel = "[unnamed kernel]"

// MemsetName is the synthetic name of every memset.
const MemsetName = "[CUDA memset]"

// Raw name codes stored in Work.Name during the scan, before names are
// resolved: StringIds ids below rawSpecial, then these.
const (
	rawSpecial = 0xFFFFFF00
	rawMemcpy  = rawSpecial        // + copyKind (0..0xEF)
	rawMemset  = rawSpecial | 0xF0 // memset
	rawUnnamed = 0xFFFFFFFF        // NULL or out-of-range name id
)

// rankKey identifies a rank.
type rankKey struct {
	pid int64
	dev int32
}

// Read reads the export behind db through database/sql alone; it is
// ReadWith with the zero Config. db must be a pool whose connections all
// see the same file, opened read-only by the caller (as package input
// does); Read opens several connections from it at once for large tables.
// Any database/sql SQLite driver will do. path is used for
// Rank.Source only.
//
// An export without a kernel table, or without any valid device work,
// yields an error matching ErrNoKernels (errors.Is).
func Read(ctx context.Context, db *sql.DB, path string, opts event.Options) (*event.Capture, error) {
	return ReadWith(ctx, db, path, opts, Config{})
}

// ReadWith is Read with a Config: with cfg.File set to the export's file
// (the file behind pool), builds with the fast scanner read the large
// tables several times faster.
func ReadWith(ctx context.Context, pool *sql.DB, path string, opts event.Options, cfg Config) (*event.Capture, error) {
	db := newSource(pool, cfg)
	s, err := probe(ctx, pool)
	if err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	if !s.tables[tKernel] {
		return nil, fmt.Errorf("%w", ErrNoKernels)
	}
	if err := s.need(tKernel, "start", "end", "deviceId", "streamId", "globalPid"); err != nil {
		return nil, err
	}
	if db.file != "" {
		probePages(ctx, pool, s)
	}
	db.s = s
	r := &reader{ctx: ctx, db: db, s: s, path: path, opts: opts,
		c: &event.Capture{Path: path, Format: event.NSys, Names: event.NewNames(), Shapes: event.NewShapes()}}
	if err := guard(r.read); err != nil { // a panic is a bug: fail this file, not the process
		return nil, err
	}
	return r.c, nil
}

type reader struct {
	ctx  context.Context
	db   *source
	s    *schema
	path string
	opts event.Options
	c    *event.Capture

	keys      []rankKey // rank keys by index
	gpuNames  map[int32]string
	procNames map[int64]string
}

func (r *reader) warnf(format string, args ...any) {
	r.c.Warnings = append(r.c.Warnings, fmt.Sprintf(format, args...))
}

func (r *reader) read() error {
	if err := r.readMeta(); err != nil {
		return err
	}
	// The CUDA API table is read while device work is: both are large,
	// and the launches need the process filter only at the end.
	lr := r.startLaunches()
	if err := r.readWork(); err != nil {
		lr.stop()
		return err
	}
	if len(r.c.Ranks) == 0 {
		rows := "the table is empty"
		if len(r.c.Warnings) > 0 {
			rows = strings.Join(r.c.Warnings, "; ")
		}
		lr.stop()
		return noWorkError{rows}
	}
	pids := map[int64]bool{}
	for _, k := range r.keys {
		pids[k.pid] = true
	}
	var launches map[int64][]event.Launch
	var ranges map[int64][]event.Range
	var nodes map[int64][]event.GraphNode
	var err error
	if r.opts.Ranges && r.s.has(tNVTX, "start", "end", "eventType", "globalTid") {
		if ranges, err = r.readNVTX(pids); err != nil {
			lr.stop()
			return fmt.Errorf("reading %s: %w", tNVTX, err)
		}
	}
	if r.opts.GraphNodes && r.s.has(tGraphNodes, "start", "end", "globalTid", "graphNodeId") {
		if nodes, err = r.readGraphNodes(pids); err != nil {
			lr.stop()
			return fmt.Errorf("reading %s: %w", tGraphNodes, err)
		}
	}
	if r.opts.LaunchesOnlyWithContext {
		// Launches serve only to project host ranges and graph-capture
		// context onto device work: skip the processes that have neither.
		for pid := range pids {
			if len(ranges[pid]) == 0 && len(nodes[pid]) == 0 {
				delete(pids, pid)
			}
		}
	}
	if launches, err = lr.result(r, pids); err != nil {
		return fmt.Errorf("reading %s: %w", tRuntime, err)
	}
	return r.finish(launches, ranges, nodes)
}

// makeRanks builds one rank per (process, device) from the work kept and
// the rank key index of each piece.
func (r *reader) makeRanks(all []event.Work, keys []uint16) error {
	// One rank per (process, device), in a stable order: by pid, device.
	order := make([]int, len(r.keys))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		ka, kb := r.keys[order[a]], r.keys[order[b]]
		if ka.pid != kb.pid {
			return ka.pid < kb.pid
		}
		return ka.dev < kb.dev
	})
	remap := make([]uint16, len(r.keys))
	sorted := make([]rankKey, len(r.keys))
	for newIdx, old := range order {
		remap[old] = uint16(newIdx)
		sorted[newIdx] = r.keys[old]
	}
	r.keys = sorted
	var parts [][]event.Work
	if len(r.keys) == 1 {
		parts = [][]event.Work{all[:len(all):len(all)]}
	} else {
		for i := range keys {
			keys[i] = remap[keys[i]]
		}
		parts = partition(all, keys, len(r.keys))
	}
	for i, k := range r.keys {
		rk := &event.Rank{Source: r.path, Format: event.NSys, PID: k.pid, Device: k.dev, Work: parts[i],
			Names: r.c.Names, Shapes: r.c.Shapes, SpanStart: -1, SpanEnd: -1}
		for j := range rk.Work {
			w := &rk.Work[j]
			spanAdd(rk, w.Start, w.End)
		}
		r.c.Ranks = append(r.c.Ranks, rk)
	}
	return nil
}

func (r *reader) finish(launches map[int64][]event.Launch, ranges map[int64][]event.Range, nodes map[int64][]event.GraphNode) error {
	c := r.c
	// capture end: the last timestamp of anything read
	var capEnd int64 = -1
	for _, rk := range c.Ranks {
		capEnd = max(capEnd, rk.SpanEnd)
	}
	for _, ls := range launches {
		for i := range ls {
			capEnd = max(capEnd, ls[i].End)
		}
	}
	openRanges := 0
	for _, rs := range ranges {
		for i := range rs {
			if rs[i].End != openEnd {
				capEnd = max(capEnd, rs[i].End)
			}
		}
	}
	for _, rs := range ranges {
		for i := range rs {
			if rs[i].End == openEnd {
				openRanges++
				rs[i].End = max(capEnd, rs[i].Start)
			}
		}
	}
	if openRanges > 0 {
		r.warnf("%d NVTX ranges were never closed; clipped to the capture end", openRanges)
	}
	for _, rk := range c.Ranks {
		rk.Launches = launches[rk.PID]
		rk.Ranges = ranges[rk.PID]
		rk.GraphNodes = nodes[rk.PID]
		for i := range rk.Launches {
			spanAdd(rk, rk.Launches[i].Start, rk.Launches[i].End)
		}
		for i := range rk.Ranges {
			spanAdd(rk, rk.Ranges[i].Start, rk.Ranges[i].End)
		}
		if rk.SpanStart < 0 {
			rk.SpanStart = 0
		}
		if rk.SpanEnd < rk.SpanStart {
			rk.SpanEnd = rk.SpanStart
		}
		rk.ToolVersion = c.ToolVersion
		rk.Host = c.Host
		rk.GPU = r.gpuNames[rk.Device]
		rk.Process = r.procNames[rk.PID]
	}
	r.capturedRank()
	return nil
}

// rankEnvVars are the environment variables that carry a rank, in order
// of preference.
var rankEnvVars = []string{"RANK", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"}

// capturedRank records the rank the captured environment names, a raw
// fact; package analysis decides the display labels.
func (r *reader) capturedRank() {
	for _, v := range rankEnvVars {
		if val, ok := r.c.Env[v]; ok && val != "" {
			r.c.CapturedRank, r.c.CapturedRankFrom = val, "env:"+v
			return
		}
	}
}
