package nsys

import (
	"fmt"

	"github.com/servecmp/servecmp/event"
)

// workTask is one rowid range of one device-work table, scanned on its
// own connection into its own part of the shared buffer.
type workTask struct {
	table   string
	kind    event.Kind
	query   *rowQuery
	lo, hi  int64
	off     int // first slot in the shared buffer
	n       int // rows kept
	dropped [nDropReasons]int
	unnamed int
	keyIdx  map[rankKey]uint16
	keys    []rankKey
	lastKey rankKey
	lastIdx int // index of lastKey, -1 before the first row
	shapes  map[event.Shape]uint32
	shList  []event.Shape
	// a small direct-mapped cache in front of shapes
	shapeCache [256]shapeSlot
}

// workQuery selects a device-work row of table (the columns of
// bounds.go's col* constants).
func (r *reader) workQuery(table string) *rowQuery {
	s := r.s
	q := &rowQuery{table: table}
	for _, c := range []string{"start", "end", "deviceId", "streamId", "globalPid"} {
		q.sels = append(q.sels, sel{cols: []string{c}})
	}
	switch table {
	case tKernel:
		var names []string
		for _, c := range []string{"demangledName", "shortName", "mangledName"} {
			if s.cols[table][c] {
				names = append(names, c)
			}
		}
		q.sels = append(q.sels, sel{cols: names, lit: "NULL"})
	case tMemcpy:
		q.sels = append(q.sels, s.sel(table, "copyKind", "0"))
	default:
		q.sels = append(q.sels, sel{lit: "0"})
	}
	q.sels = append(q.sels, s.sel(table, "correlationId", "0"), s.sel(table, "graphNodeId", "NULL"))
	if table == tKernel {
		for _, c := range []string{"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"} {
			q.sels = append(q.sels, s.sel(table, c, "0"))
		}
	}
	return q
}

// readWork reads the device-work tables (kernels, memcpy, memset) into one
// rank per (process, device).
func (r *reader) readWork() error {
	tasks, total, err := r.planWork()
	if err != nil {
		return err
	}
	all := make([]event.Work, total)
	adviseHuge(all)
	keys := make([]uint16, total)
	fns := make([]func() error, len(tasks))
	for i, t := range tasks {
		fns[i] = func() error { return r.scanWork(t, all[t.off:t.off+int(t.hi-t.lo+1)], keys[t.off:]) }
	}
	if err := r.db.run(r.ctx, fns); err != nil {
		return err
	}
	all, keys, unnamed, err := r.mergeWork(tasks, all, keys)
	if err != nil {
		return err
	}
	if err := r.resolveWorkNames(all, unnamed); err != nil {
		return err
	}
	return r.makeRanks(all, keys)
}

// planWork splits the device-work tables into rowid-range tasks and
// returns them with the number of slots they need.
func (r *reader) planWork() ([]*workTask, int, error) {
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
		lo, hi, ok, err := rowidRange(r.ctx, r.db.pool, spec.table)
		if err != nil {
			return nil, 0, fmt.Errorf("reading %s: %w", spec.table, err)
		}
		if !ok {
			continue
		}
		if _, err := rowSpan(spec.table, lo, hi); err != nil {
			return nil, 0, err
		}
		q := r.workQuery(spec.table)
		for _, c := range r.db.chunks(lo, hi, r.db.parts()) {
			tasks = append(tasks, &workTask{table: spec.table, kind: spec.kind, query: q,
				lo: c[0], hi: c[1], off: total})
			total += int(c[1] - c[0] + 1)
		}
	}
	if total+len(tasks) > maxRowSpan {
		return nil, 0, fmt.Errorf("too many device rows (%d)", total)
	}
	return tasks, total, nil
}

// mergeWork maps the tasks' local rank keys and shapes to global ones and
// compacts the rows kept, in task order, to the front of all and keys. It
// returns the compacted slices and the number of kernels without a name
// id.
func (r *reader) mergeWork(tasks []*workTask, all []event.Work, keys []uint16) ([]event.Work, []uint16, int, error) {
	keyIdx := map[rankKey]uint16{}
	dst := 0
	dropped := map[event.Kind]*[nDropReasons]int{}
	unnamed := 0
	for _, t := range tasks {
		if dropped[t.kind] == nil {
			dropped[t.kind] = new([nDropReasons]int)
		}
		for why, n := range t.dropped {
			dropped[t.kind][why] += n
		}
		unnamed += t.unnamed
		kmap := make([]uint16, len(t.keys))
		for i, k := range t.keys {
			g, ok := keyIdx[k]
			if !ok {
				if len(r.keys) >= 1<<16-1 {
					return nil, nil, 0, fmt.Errorf("more than %d (process, device) pairs", 1<<16-1)
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
	r.c.Warnings = append(r.c.Warnings, dropWarnings(dropped)...)
	return all[:dst], keys[:dst], unnamed, nil
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
	nc := len(t.query.sels)
	err := r.db.intScan(r.ctx, t.query, t.lo, t.hi, func() scanFn {
		t.reset()
		return func(vals []int64, nulls []uint32) error {
			for row, null := range nulls {
				if err := r.workRow(t, vals[row*nc:row*nc+nc:row*nc+nc], null, out, keys); err != nil {
					return err
				}
			}
			return nil
		}
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", t.table, err)
	}
	return nil
}

// reset empties what a scan of t has kept, for a fresh scan.
func (t *workTask) reset() {
	t.n, t.dropped, t.unnamed = 0, [nDropReasons]int{}, 0
	t.keyIdx, t.keys, t.lastIdx = map[rankKey]uint16{}, nil, -1
	t.shapes, t.shList, t.shapeCache = map[event.Shape]uint32{}, nil, [256]shapeSlot{}
}

// workRow keeps the scanned device-work row v (with its NULL mask) of
// task t in out[t.n] and its rank key in keys[t.n], or counts why not.
func (r *reader) workRow(t *workTask, v []int64, null uint32, out []event.Work, keys []uint16) error {
	start, end := v[colStart], v[colEnd]
	if why, ok := checkWork(v, null, t.kind == event.Kernel); !ok {
		t.dropped[why]++
		return nil
	}
	if t.n >= len(out) {
		return fmt.Errorf("%s: more rows than row ids", t.table)
	}
	idx, err := t.keyOf(rankKey{pid: (v[4] >> 24) & 0xFFFFFF, dev: int32(v[2])})
	if err != nil {
		return err
	}
	w := &out[t.n]
	*w = event.Work{Start: start, End: end, Correlation: uint64(v[6]), GraphNode: v[7], Name: t.rawName(v, null),
		Stream: uint32(v[3]), Kind: t.kind}
	if t.kind == event.Kernel {
		w.Shape = t.shapeID(event.Shape{Grid: [3]int32{int32(v[8]), int32(v[9]), int32(v[10])},
			Block: [3]int32{int32(v[11]), int32(v[12]), int32(v[13])}})
	}
	keys[t.n] = idx
	t.n++
	return nil
}

// shapeSlot is one entry of workTask's shape cache.
type shapeSlot struct {
	sh event.Shape
	id uint32
}

// keyOf returns the task-local index of rank key k (rows of one rank come
// in runs, so the last key is checked first).
func (t *workTask) keyOf(k rankKey) (uint16, error) {
	if t.lastIdx >= 0 && k == t.lastKey {
		return uint16(t.lastIdx), nil
	}
	idx, ok := t.keyIdx[k]
	if !ok {
		if len(t.keys) >= 1<<16-1 {
			return 0, fmt.Errorf("%s: more than %d (process, device) pairs", t.table, 1<<16-1)
		}
		idx = uint16(len(t.keys))
		t.keyIdx[k] = idx
		t.keys = append(t.keys, k)
	}
	t.lastKey, t.lastIdx = k, int(idx)
	return idx, nil
}

// rawName returns the raw name code of a scanned row v (see rawSpecial).
func (t *workTask) rawName(v []int64, null uint32) uint32 {
	switch t.kind {
	case event.Kernel:
		if id := v[5]; null&(1<<5) != 0 || id < 0 || id >= rawSpecial {
			t.unnamed++
			return rawUnnamed
		}
		return uint32(v[5])
	case event.Memcpy:
		ck := v[5]
		if ck < 0 || ck >= 0xF0 {
			ck = 0
		}
		return rawMemcpy + uint32(ck)
	}
	return rawMemset
}

// shapeID returns the task-local id of a launch shape, 0 for none.
func (t *workTask) shapeID(sh event.Shape) uint32 {
	if sh == (event.Shape{}) {
		return 0
	}
	g, b := sh.Grid, sh.Block
	h := (uint64(uint32(g[0]))<<32 | uint64(uint32(g[1]))) ^ (uint64(uint32(g[2]))<<40 | uint64(uint32(b[0]))<<20 | uint64(uint32(b[1]))<<8 | uint64(uint32(b[2])))
	slot := &t.shapeCache[(h*0x9E3779B97F4A7C15)>>(64-8)]
	if slot.id != 0 && slot.sh == sh {
		return slot.id
	}
	id, ok := t.shapes[sh]
	if !ok {
		t.shList = append(t.shList, sh)
		id = uint32(len(t.shList))
		t.shapes[sh] = id
	}
	slot.sh, slot.id = sh, id
	return id
}
