package nsys

import (
	"database/sql"
	"database/sql/driver"
	"math"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/event"
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

func (r *reader) readNVTX(pids map[int64]bool) (map[int64][]event.Range, error) {
	var in []string
	for _, id := range r.nvtxTypeIDs() {
		in = append(in, strconv.FormatInt(id, 10))
	}
	q := "SELECT start, end, globalTid, " + r.s.colOr(tNVTX, "text", "NULL") + ", " + r.s.colOr(tNVTX, "textId", "NULL") +
		" FROM " + tNVTX + " WHERE eventType IN (" + strings.Join(in, ",") + ")"
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
	err := rawScan(r.ctx, r.db.pool, q, nil, 5, func(v []driver.Value) error {
		gtid, _ := i64(v[2])
		pid := (gtid >> 24) & 0xFFFFFF
		if !pids[pid] {
			return nil
		}
		start, ok := i64(v[0])
		// ranges pushed before the session began start below zero
		if !ok || start < -event.MaxTime || start > event.MaxTime {
			bad++
			return nil
		}
		end, ok := i64(v[1])
		if !ok {
			end = openEnd
		} else if end < start {
			end = start
		} else if end > event.MaxTime {
			bad++
			return nil
		}
		rg := event.Range{Start: start, End: end, TID: gtid & 0xFFFFFF, Kind: event.NVTX}
		if s, ok := text(v[3]); ok {
			rg.Text = names.ID(s)
		} else if id, ok := i64(v[4]); ok {
			need = append(need, pending{pid, len(out[pid]), id})
			if !seen[id] {
				seen[id] = true
				needIDs = append(needIDs, id)
			}
		}
		out[pid] = append(out[pid], rg)
		return nil
	})
	if err != nil {
		return nil, err
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
