package nsys

import (
	"database/sql"
	"database/sql/driver"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/nsys/internal/pagescan"
)

// openEnd marks an NVTX range without an end until the capture end is
// known.
const openEnd = math.MaxInt64

// nvtxRangeTypes are the ENUM_NSYS_EVENT_TYPE names of NVTX ranges, with
// the ids used when the enum table is absent.
var nvtxRangeTypes = map[string]int64{"NvtxPushPopRange": 59, "NvtxStartEndRange": 60,
	"NvtxtPushPopRange": 70, "NvtxtStartEndRange": 71}

func (r *reader) nvtxTypeIDs() []int64 {
	var ids []int64
	if r.s.has(tEventType, "id", "name") {
		rows, err := r.db.pool.QueryContext(r.ctx, "SELECT id, name FROM "+tEventType)
		if err == nil {
			for rows.Next() {
				var id int64
				var name sql.NullString
				if rows.Scan(&id, &name) == nil {
					if _, ok := nvtxRangeTypes[name.String]; ok {
						ids = append(ids, id)
					}
				}
			}
			rows.Close()
		}
	}
	if len(ids) == 0 {
		for _, id := range nvtxRangeTypes {
			ids = append(ids, id)
		}
	}
	return ids
}

// nvtxRow is one NVTX range row kept by a chunk scan: its range, and
// where its text comes from (the chunk's texts, or a StringIds id).
type nvtxRow struct {
	pid    int64
	rg     event.Range // Text unset
	text   int         // index into the chunk's texts, -1 for none
	textID int64
	hasID  bool
}

// nvtxChunk is one rowid range of NVTX_EVENTS and the ranges its scan
// kept, in rowid order, with their distinct texts in order of first use.
type nvtxChunk struct {
	lo, hi int64
	rows   []nvtxRow
	texts  []string
	textIx map[string]int
	bad    int
}

// readNVTX reads the NVTX ranges of the processes in pids: the table is
// read over rowid ranges, several at once, and the chunks' ranges are
// then joined in rowid order, their texts interned in the order of
// their first use.
func (r *reader) readNVTX(pids map[int64]bool) (map[int64][]event.Range, error) {
	types := map[int64]bool{}
	for _, id := range r.nvtxTypeIDs() {
		types[id] = true
	}
	lo, hi, ok, err := rowidRange(r.ctx, r.db.pool, tNVTX)
	if err != nil || !ok {
		return nil, err
	}
	if _, err := rowSpan(tNVTX, lo, hi); err != nil {
		return nil, err
	}
	parts := r.db.chunks(lo, hi, r.db.parts())
	chunks := make([]*nvtxChunk, len(parts))
	fns := make([]func() error, len(parts))
	for i, p := range parts {
		c := &nvtxChunk{lo: p[0], hi: p[1]}
		chunks[i] = c
		fns[i] = func() error { return r.scanNVTX(c, pids, types) }
	}
	if err := r.db.run(r.ctx, fns); err != nil {
		return nil, err
	}
	return r.joinNVTX(chunks)
}

// joinNVTX joins the chunks' ranges by process, in rowid order, and
// sets their texts.
func (r *reader) joinNVTX(chunks []*nvtxChunk) (map[int64][]event.Range, error) {
	out := map[int64][]event.Range{}
	type pending struct {
		pid    int64
		i      int
		textID int64
	}
	var need []pending
	var needIDs []int64
	seen := map[int64]bool{}
	bad := 0
	names := r.c.Names
	for _, c := range chunks {
		bad += c.bad
		ids := make([]uint32, len(c.texts))
		for i, t := range c.texts {
			ids[i] = names.ID(t)
		}
		for _, row := range c.rows {
			rg := row.rg
			if row.text >= 0 {
				rg.Text = ids[row.text]
			} else if row.hasID {
				need = append(need, pending{row.pid, len(out[row.pid]), row.textID})
				if !seen[row.textID] {
					seen[row.textID] = true
					needIDs = append(needIDs, row.textID)
				}
			}
			out[row.pid] = append(out[row.pid], rg)
		}
	}
	if bad > 0 {
		r.warnf("dropped %d NVTX ranges with a missing or out-of-range start or end", bad)
	}
	if len(need) > 0 {
		strs, err := r.lookupStrings(needIDs)
		if err != nil {
			return nil, err
		}
		for _, p := range need {
			out[p.pid][p.i].Text = names.ID(strs[p.textID])
		}
	}
	return out, nil
}

// nvtxValues are the values of one NVTX row as the scans give them:
// start, end, globalTid, text (ok false for none) and textId.
type nvtxValues struct {
	start, end, gtid, textID int64
	okStart, okEnd, okID     bool
	text                     string
	okText                   bool
}

// keep adds the row v to c when its process is in pids, or counts it
// as bad.
func (c *nvtxChunk) keep(v *nvtxValues, pids map[int64]bool) {
	pid := (v.gtid >> 24) & 0xFFFFFF
	if !pids[pid] {
		return
	}
	start, end := v.start, v.end
	// ranges pushed before the session began start below zero
	if !v.okStart || start < -event.MaxTime || start > event.MaxTime {
		c.bad++
		return
	}
	if !v.okEnd {
		end = openEnd
	} else if end < start {
		end = start
	} else if end > event.MaxTime {
		c.bad++
		return
	}
	row := nvtxRow{pid: pid, rg: event.Range{Start: start, End: end, TID: v.gtid & 0xFFFFFF, Kind: event.NVTX}, text: -1}
	if v.okText {
		i, ok := c.textIx[v.text]
		if !ok {
			if c.textIx == nil {
				c.textIx = map[string]int{}
			}
			i = len(c.texts)
			c.textIx[v.text] = i
			c.texts = append(c.texts, v.text)
		}
		row.text = i
	} else if v.okID {
		row.textID, row.hasID = v.textID, true
	}
	c.rows = append(c.rows, row)
}

// readGraphNodes reads the CUDA graph node events (capture and
// instantiation) of the processes in pids.
func (r *reader) readGraphNodes(pids map[int64]bool) (map[int64][]event.GraphNode, error) {
	q := "SELECT start, end, globalTid, graphNodeId, " + r.s.colOr(tGraphNodes, "originalGraphNodeId", "NULL") + " FROM " + tGraphNodes
	out := map[int64][]event.GraphNode{}
	bad := 0
	err := rawScan(r.ctx, r.db.pool, q, nil, 5, func(v []driver.Value) error {
		gtid, _ := i64(v[2])
		pid := (gtid >> 24) & 0xFFFFFF
		if !pids[pid] {
			return nil
		}
		start, ok1 := i64(v[0])
		end, ok2 := i64(v[1])
		if !ok1 || !ok2 || !event.HostTimesOK(start, end) {
			bad++
			return nil
		}
		node, _ := i64(v[3])
		orig, _ := i64(v[4])
		out[pid] = append(out[pid], event.GraphNode{Node: node, Original: orig, Start: start, End: end, TID: gtid & 0xFFFFFF})
		return nil
	})
	if bad > 0 {
		r.warnf("dropped %d CUDA graph node events with invalid times", bad)
	}
	return out, err
}

// scanNVTX reads the NVTX ranges of chunk c: from the pages where it
// can, else (and after a page scan fails, from scratch) through SQLite.
func (r *reader) scanNVTX(c *nvtxChunk, pids map[int64]bool, types map[int64]bool) error {
	if t, pos, ok := r.nvtxPlan(); ok {
		var v nvtxValues
		err := pagescan.ScanValues(r.ctx, t, pos, c.lo, c.hi, func(_ int64, vals []pagescan.Value) error {
			if !typeIn(vals[5], types) {
				return nil
			}
			v.start, v.okStart = valueInt(vals[0])
			v.end, v.okEnd = valueInt(vals[1])
			v.gtid, _ = valueInt(vals[2])
			v.text, v.okText = valueText(vals[3])
			v.textID, v.okID = valueInt(vals[4])
			c.keep(&v, pids)
			return nil
		})
		if err == nil || r.ctx.Err() != nil {
			pageReads.Add(1)
			return err
		}
		pageFallbacks.Add(1)
		*c = nvtxChunk{lo: c.lo, hi: c.hi}
	}
	in := make([]string, 0, len(types))
	for id := range types {
		in = append(in, strconv.FormatInt(id, 10))
	}
	slices.Sort(in)
	q := "SELECT start, end, globalTid, " + r.s.colOr(tNVTX, "text", "NULL") + ", " + r.s.colOr(tNVTX, "textId", "NULL") +
		" FROM " + tNVTX + " WHERE rowid BETWEEN ? AND ? AND eventType IN (" + strings.Join(in, ",") + ")"
	var v nvtxValues
	return rawScan(r.ctx, r.db.pool, q, intArgs([]int64{c.lo, c.hi}), 5, func(vals []driver.Value) error {
		v.start, v.okStart = i64(vals[0])
		v.end, v.okEnd = i64(vals[1])
		v.gtid, _ = i64(vals[2])
		v.text, v.okText = text(vals[3])
		v.textID, v.okID = i64(vals[4])
		c.keep(&v, pids)
		return nil
	})
}

// nvtxPlan returns the page scanner's table and the record positions of
// start, end, globalTid, text, textId and eventType (-1: absent, NULL);
// ok is false when the table is to be read through SQLite.
func (r *reader) nvtxPlan() (pagescan.Table, []int, bool) {
	pt := r.s.pages[tNVTX]
	if r.db.file == "" || pt == nil || !usePages {
		return pagescan.Table{}, nil, false
	}
	var pos []int
	for i, name := range []string{"start", "end", "globalTid", "text", "textId", "eventType"} {
		pc, ok := pt.cols[name]
		switch {
		case !ok && (i == 3 || i == 4):
			pos = append(pos, -1)
			continue
		case !ok || !pc.ok || name == "eventType" && !pc.intAffinity:
			return pagescan.Table{}, nil, false
		}
		pos = append(pos, pc.pos)
	}
	return pagescan.Table{Path: r.db.file, Root: pt.root}, pos, true
}

// typeIn reports whether eventType value v equals one of types, as
// SQLite's "eventType IN (...)" on a column of integer affinity finds:
// numbers compare by value, text and blobs equal no number.
func typeIn(v pagescan.Value, types map[int64]bool) bool {
	switch v.Kind {
	case pagescan.Int:
		return types[v.Int]
	case pagescan.Float:
		x, ok := i64(v.Float)
		return ok && types[x] && float64(x) == v.Float
	}
	return false
}

// valueInt reads an integer column as i64 reads the driver's value.
func valueInt(v pagescan.Value) (int64, bool) {
	switch v.Kind {
	case pagescan.Int:
		return v.Int, true
	case pagescan.Float:
		return i64(v.Float)
	}
	return 0, false
}

// valueText reads a text column as text reads the driver's value.
func valueText(v pagescan.Value) (string, bool) {
	switch v.Kind {
	case pagescan.Text, pagescan.Blob:
		return string(v.Bytes), true
	case pagescan.Int:
		return strconv.FormatInt(v.Int, 10), true
	}
	return "", false
}
