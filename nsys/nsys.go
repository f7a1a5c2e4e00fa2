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
//   - process id = (globalPid >> 24) & 0xFFFFFF, thread id = globalTid &
//     0xFFFFFF;
//   - strings are resolved through StringIds once per distinct id.
//
// Large kernel tables are read with several read-only connections over
// rowid ranges through the driver's raw row interface, into one
// pre-sized slice that is then partitioned in place per rank.
package nsys

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
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

// Read reads the export behind db. db must be a pool whose connections all
// see the same file (opened read-only by the caller, as input.DSN does);
// Read opens several connections from it at once for large tables. path is
// used for Rank.Source only.
//
// Speed: with the mattn driver, integer columns are copied out by a C loop
// over the connection's own SQLite handle; open the pool with _mutex=no
// (each connection is used by one goroutine at a time) or every column
// read pays a mutex. Other drivers take the slower database/sql path.
//
// An export without a kernel table, or without any valid device work,
// yields an error matching ErrNoKernels (errors.Is).
func Read(ctx context.Context, db *sql.DB, path string, opts event.Options) (*event.Capture, error) {
	s, err := probe(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	if !s.tables[tKernel] {
		return nil, fmt.Errorf("%w", ErrNoKernels)
	}
	if err := s.need(tKernel, "start", "end", "deviceId", "streamId", "globalPid"); err != nil {
		return nil, err
	}
	r := &reader{ctx: ctx, db: db, s: s, path: path, opts: opts,
		c: &event.Capture{Path: path, Format: event.NSys, Names: event.NewNames(), Shapes: event.NewShapes()}}
	if err := r.read(); err != nil {
		return nil, err
	}
	return r.c, nil
}

type reader struct {
	ctx  context.Context
	db   *sql.DB
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
	if err := r.readWork(); err != nil {
		return err
	}
	if len(r.c.Ranks) == 0 {
		rows := "the table is empty"
		if len(r.c.Warnings) > 0 {
			rows = strings.Join(r.c.Warnings, "; ")
		}
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
			return fmt.Errorf("reading %s: %w", tNVTX, err)
		}
	}
	if r.opts.GraphNodes && r.s.has(tGraphNodes, "start", "end", "globalTid", "graphNodeId") {
		if nodes, err = r.readGraphNodes(pids); err != nil {
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
	if r.opts.Launches && len(pids) > 0 && r.s.has(tRuntime, "start", "end", "globalTid", "nameId") {
		if launches, err = r.readLaunches(pids); err != nil {
			return fmt.Errorf("reading %s: %w", tRuntime, err)
		}
	}
	return r.finish(launches, ranges, nodes)
}

// ---- device work ----

type workTask struct {
	table   string
	kind    event.Kind
	query   string
	ncol    int
	lo, hi  int64
	off     int // first slot in the shared buffer
	n       int // rows kept
	dropped int
	unnamed int
	keyIdx  map[rankKey]uint16
	keys    []rankKey
	shapes  map[event.Shape]uint32
	shList  []event.Shape
}

func (r *reader) workQuery(table string) (string, int) {
	s := r.s
	cols := []string{"start", "end", "deviceId", "streamId", "globalPid"}
	switch table {
	case tKernel:
		var names []string
		for _, c := range []string{"demangledName", "shortName", "mangledName"} {
			if s.cols[table][c] {
				names = append(names, c)
			}
		}
		switch len(names) {
		case 0:
			cols = append(cols, "NULL")
		case 1:
			cols = append(cols, names[0])
		default:
			cols = append(cols, "COALESCE("+strings.Join(names, ", ")+")")
		}
	case tMemcpy:
		cols = append(cols, s.colOr(table, "copyKind", "0"))
	default:
		cols = append(cols, "0")
	}
	cols = append(cols, s.colOr(table, "correlationId", "0"), s.colOr(table, "graphNodeId", "NULL"))
	if table == tKernel {
		for _, c := range []string{"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"} {
			cols = append(cols, s.colOr(table, c, "0"))
		}
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + table + " WHERE rowid BETWEEN ? AND ?", len(cols)
}

func (r *reader) readWork() error {
	var tasks []*workTask
	total := 0
	for _, spec := range []struct {
		table string
		kind  event.Kind
	}{{tKernel, event.Kernel}, {tMemcpy, event.Memcpy}, {tMemset, event.Memset}} {
		if !r.s.tables[spec.table] {
			continue
		}
		if spec.table != tKernel {
			if err := r.s.need(spec.table, "start", "end", "deviceId", "streamId", "globalPid"); err != nil {
				r.warnf("skipped %s: %v", spec.table, err)
				continue
			}
		}
		lo, hi, ok, err := rowidRange(r.ctx, r.db, spec.table)
		if err != nil {
			return fmt.Errorf("reading %s: %w", spec.table, err)
		}
		if !ok {
			continue
		}
		if hi-lo+1 > maxRowSpan || hi < lo {
			return fmt.Errorf("reading %s: implausible row ids %d..%d", spec.table, lo, hi)
		}
		q, ncol := r.workQuery(spec.table)
		for _, c := range chunks(lo, hi, workers()) {
			tasks = append(tasks, &workTask{table: spec.table, kind: spec.kind, query: q, ncol: ncol,
				lo: c[0], hi: c[1], off: total})
			total += int(c[1] - c[0] + 1)
		}
	}
	if total+len(tasks) > maxRowSpan {
		return fmt.Errorf("too many device rows (%d)", total)
	}
	all := make([]event.Work, total)
	adviseHuge(all)
	keys := make([]uint16, total)
	fns := make([]func() error, len(tasks))
	for i, t := range tasks {
		fns[i] = func() error { return r.scanWork(t, all[t.off:t.off+int(t.hi-t.lo+1)], keys[t.off:]) }
	}
	if err := runAll(fns); err != nil {
		return err
	}

	// Merge task results: global rank keys and shapes, compact in order.
	keyIdx := map[rankKey]uint16{}
	dst := 0
	dropped := map[event.Kind]int{}
	unnamed := 0
	for _, t := range tasks {
		dropped[t.kind] += t.dropped
		unnamed += t.unnamed
		kmap := make([]uint16, len(t.keys))
		for i, k := range t.keys {
			g, ok := keyIdx[k]
			if !ok {
				if len(r.keys) >= 1<<16-1 {
					return fmt.Errorf("more than %d (process, device) pairs", 1<<16-1)
				}
				g = uint16(len(r.keys))
				keyIdx[k] = g
				r.keys = append(r.keys, k)
			}
			kmap[i] = g
		}
		smap := make([]uint32, len(t.shList)+1)
		for i, sh := range t.shList {
			smap[i+1] = r.c.Shapes.ID(sh)
		}
		copy(all[dst:], all[t.off:t.off+t.n])
		copy(keys[dst:], keys[t.off:t.off+t.n])
		seg, segKeys := all[dst:dst+t.n], keys[dst:dst+t.n]
		for i := range seg {
			segKeys[i] = kmap[segKeys[i]]
			seg[i].Shape = smap[seg[i].Shape]
		}
		dst += t.n
	}
	all, keys = all[:dst], keys[:dst]
	for _, k := range []event.Kind{event.Kernel, event.Memcpy, event.Memset} {
		if n := dropped[k]; n > 0 {
			r.warnf("dropped %d %ss with invalid timestamps (NULL, end < start, or both 0)", n, k)
		}
	}
	if err := r.resolveWorkNames(all, unnamed); err != nil {
		return err
	}

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

// spanAdd widens the rank's span by [start, end]; negative times are
// ignored.
func spanAdd(rk *event.Rank, start, end int64) {
	if start >= 0 && (rk.SpanStart < 0 || start < rk.SpanStart) {
		rk.SpanStart = start
	}
	if end >= 0 && end > rk.SpanEnd {
		rk.SpanEnd = end
	}
}

// scanWork reads one rowid range of a device-work table into out (rows
// kept are packed from out[0]) and the local rank key of each row into
// keys.
func (r *reader) scanWork(t *workTask, out []event.Work, keys []uint16) error {
	t.keyIdx = map[rankKey]uint16{}
	t.shapes = map[event.Shape]uint32{}
	var lastKey rankKey
	lastKeyIdx := -1
	var shapeCache [64]struct {
		sh event.Shape
		id uint32
	}
	isKernel := t.kind == event.Kernel
	nc := t.ncol
	err := intScan(r.ctx, r.db, t.query, []int64{t.lo, t.hi}, nc, func(vals []int64, nulls []uint32) error {
		for row, null := range nulls {
			v := vals[row*nc : row*nc+nc : row*nc+nc]
			start, end := v[0], v[1]
			if null&3 != 0 || end < start || (start == 0 && end == 0) {
				t.dropped++
				continue
			}
			if t.n >= len(out) {
				return fmt.Errorf("%s: more rows than row ids", t.table)
			}
			k := rankKey{pid: (v[4] >> 24) & 0xFFFFFF, dev: int32(v[2])}
			if k != lastKey || lastKeyIdx < 0 {
				idx, ok := t.keyIdx[k]
				if !ok {
					if len(t.keys) >= 1<<16-1 {
						return fmt.Errorf("%s: more than %d (process, device) pairs", t.table, 1<<16-1)
					}
					idx = uint16(len(t.keys))
					t.keyIdx[k] = idx
					t.keys = append(t.keys, k)
				}
				lastKey, lastKeyIdx = k, int(idx)
			}
			var name uint32
			switch t.kind {
			case event.Kernel:
				if id := v[5]; null&(1<<5) != 0 || id < 0 || id >= rawSpecial {
					name = rawUnnamed
					t.unnamed++
				} else {
					name = uint32(id)
				}
			case event.Memcpy:
				ck := v[5]
				if ck < 0 || ck >= 0xF0 {
					ck = 0
				}
				name = rawMemcpy + uint32(ck)
			default:
				name = rawMemset
			}
			w := &out[t.n]
			*w = event.Work{Start: start, End: end, Correlation: uint64(v[6]), GraphNode: v[7], Name: name,
				Stream: uint32(v[3]), Kind: t.kind}
			if isKernel {
				sh := event.Shape{Grid: [3]int32{int32(v[8]), int32(v[9]), int32(v[10])},
					Block: [3]int32{int32(v[11]), int32(v[12]), int32(v[13])}}
				if sh != (event.Shape{}) {
					// a small direct-mapped cache in front of the map
					slot := &shapeCache[uint32(v[8]*7+v[9]*3+v[11]*5+v[12])%uint32(len(shapeCache))]
					if slot.id == 0 || slot.sh != sh {
						id, ok := t.shapes[sh]
						if !ok {
							t.shList = append(t.shList, sh)
							id = uint32(len(t.shList))
							t.shapes[sh] = id
						}
						slot.sh, slot.id = sh, id
					}
					w.Shape = slot.id
				}
			}
			keys[t.n] = uint16(lastKeyIdx)
			t.n++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", t.table, err)
	}
	return nil
}

// resolveWorkNames turns raw name codes into Names ids.
func (r *reader) resolveWorkNames(all []event.Work, nullNames int) error {
	// distinct StringIds ids, with a dense table when ids are small
	maxID := uint32(0)
	for i := range all {
		if n := all[i].Name; n < rawSpecial && n > maxID {
			maxID = n
		}
	}
	var dense []uint32 // id+1 → names id + 1 (0 = unset)
	sparse := map[uint32]uint32{}
	useDense := maxID < 1<<24
	if useDense {
		dense = make([]uint32, maxID+1)
	}
	var ids []int64
	for i := range all {
		n := all[i].Name
		if n >= rawSpecial {
			continue
		}
		if useDense {
			if dense[n] == 0 {
				dense[n] = 1
				ids = append(ids, int64(n))
			}
		} else if _, ok := sparse[n]; !ok {
			sparse[n] = 0
			ids = append(ids, int64(n))
		}
	}
	strs, err := r.lookupStrings(ids)
	if err != nil {
		return err
	}
	names := r.c.Names
	unnamed := uint32(0)
	unnamedID := func() uint32 {
		if unnamed == 0 {
			unnamed = names.ID(UnnamedKernel)
		}
		return unnamed
	}
	dangling := 0
	for _, id := range ids {
		var nid uint32
		if s, ok := strs[id]; ok && s != "" {
			nid = names.ID(s)
		} else {
			nid = unnamedID()
		}
		if useDense {
			dense[id] = nid
		} else {
			sparse[uint32(id)] = nid
		}
	}
	memcpyLabels := r.memcpyLabels()
	var special [256]uint32
	for i := range all {
		w := &all[i]
		n := w.Name
		switch {
		case n < rawSpecial && useDense:
			w.Name = dense[n]
		case n < rawSpecial:
			w.Name = sparse[n]
		case n == rawUnnamed:
			w.Name = unnamedID()
		default:
			code := n - rawSpecial
			if special[code] == 0 {
				if n == rawMemset {
					special[code] = names.ID(MemsetName)
				} else {
					label, ok := memcpyLabels[int64(code)]
					if !ok {
						label = "Unknown"
					}
					special[code] = names.ID("[CUDA memcpy " + label + "]")
				}
			}
			w.Name = special[code]
			continue
		}
		if w.Name == unnamed && unnamed != 0 && n != rawUnnamed {
			dangling++
		}
	}
	if nullNames+dangling > 0 {
		r.warnf("%d kernels had no name (NULL or unknown string id); named %q", nullNames+dangling, UnnamedKernel)
	}
	return nil
}

// lookupStrings returns the StringIds values of ids.
func (r *reader) lookupStrings(ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 || !r.s.has(tStrings, "id", "value") {
		return out, nil
	}
	if len(ids) > 20000 {
		// many ids: one pass over the table is cheaper than point lookups
		want := make(map[int64]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		err := rawScan(r.ctx, r.db, "SELECT id, value FROM StringIds", nil, 2, func(v []driver.Value) error {
			id, _ := i64(v[0])
			if want[id] {
				s, _ := text(v[1])
				out[id] = s
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading StringIds: %w", err)
		}
		return out, nil
	}
	slices.Sort(ids)
	// Query in batches with IN lists; the id is the table's rowid.
	const batch = 500
	for i := 0; i < len(ids); i += batch {
		part := ids[i:min(i+batch, len(ids))]
		q := "SELECT id, value FROM StringIds WHERE id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(part)), ",") + ")"
		err := rawScan(r.ctx, r.db, q, intArgs(part), 2, func(v []driver.Value) error {
			id, _ := i64(v[0])
			s, _ := text(v[1])
			out[id] = s
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading StringIds: %w", err)
		}
	}
	return out, nil
}

// fallbackMemcpyLabels are ENUM_CUDA_MEMCPY_OPER labels for exports that
// predate the ENUM tables.
var fallbackMemcpyLabels = []string{"Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array", "Array-to-Host",
	"Array-to-Array", "Array-to-Device", "Device-to-Array", "Device-to-Device", "Host-to-Host", "Peer-to-Peer",
	"Unified Host-to-Device", "Unified Device-to-Host", "Unified Device-to-Device"}

func (r *reader) memcpyLabels() map[int64]string {
	out := map[int64]string{}
	for i, l := range fallbackMemcpyLabels {
		out[int64(i)] = l
	}
	if !r.s.has(tMemcpyOper, "id", "label") {
		return out
	}
	rows, err := r.db.QueryContext(r.ctx, "SELECT id, label FROM "+tMemcpyOper)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var label sql.NullString
		if rows.Scan(&id, &label) == nil && label.Valid && label.String != "" {
			out[id] = label.String
		}
	}
	return out
}

// ---- finishing ----

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
