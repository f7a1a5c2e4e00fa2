package nsys

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/event"
)

// openEnd marks an NVTX range without an end until the capture end is
// known.
const openEnd = math.MaxInt64

// ---- metadata ----

func (r *reader) queryPairs(q string, fn func(a, b string)) error {
	rows, err := r.db.QueryContext(r.ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a, b sql.NullString
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		fn(a.String, b.String)
	}
	return rows.Err()
}

// queryIDNames runs q, whose columns are an integer id and a name, and
// calls fn with each row.
func (r *reader) queryIDNames(q string, fn func(id sql.NullInt64, name sql.NullString)) error {
	rows, err := r.db.QueryContext(r.ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id sql.NullInt64
		var name sql.NullString
		if err := rows.Scan(&id, &name); err != nil {
			return err
		}
		fn(id, name)
	}
	return rows.Err()
}

func (r *reader) readMeta() error {
	c := r.c
	for _, t := range []string{"META_DATA_EXPORT", "EXPORT_META_DATA"} {
		if !r.s.has(t, "name", "value") {
			continue
		}
		err := r.queryPairs("SELECT name, value FROM "+t+" WHERE name = 'EXPORT_PRODUCT_VERSION'", func(_, v string) {
			c.ToolVersion = v
		})
		if err != nil {
			return fmt.Errorf("reading %s: %w", t, err)
		}
		if c.ToolVersion != "" {
			break
		}
	}
	env := map[string]string{}
	if r.s.has(tSysEnv, "name", "value") {
		err := r.queryPairs("SELECT name, value FROM "+tSysEnv+" WHERE name IN ('Hostname', 'DeviceEnvironment')", func(n, v string) {
			switch n {
			case "Hostname":
				if c.Host == "" {
					c.Host = v
				}
			case "DeviceEnvironment":
				for _, kv := range strings.Split(v, ";") {
					if k, val, ok := strings.Cut(kv, "="); ok && k != "" {
						env[k] = val
					}
				}
			}
		})
		if err != nil {
			return fmt.Errorf("reading %s: %w", tSysEnv, err)
		}
	}
	if r.s.has(tCapture, "name", "value") {
		err := r.queryPairs("SELECT name, value FROM "+tCapture+
			" WHERE name IN ('PROCESS_0:ENVIRONMENT_VARIABLE', 'PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE')", func(n, v string) {
			if n == "PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE" {
				c.GraphTraceMode = strings.ToLower(strings.TrimSpace(v))
				return
			}
			if k, val, ok := strings.Cut(v, "="); ok && k != "" {
				if uq, err := strconv.Unquote(val); err == nil {
					val = uq
				} else {
					val = strings.Trim(val, `"`)
				}
				env[k] = val // the launched process's own record wins
			}
		})
		if err != nil {
			return fmt.Errorf("reading %s: %w", tCapture, err)
		}
	}
	if len(env) > 0 {
		c.Env = env
	}
	r.gpuNames = map[int32]string{}
	if r.s.has(tGPU, "id", "name") {
		err := r.queryIDNames("SELECT id, name FROM "+tGPU, func(id sql.NullInt64, name sql.NullString) {
			if _, seen := r.gpuNames[int32(id.Int64)]; id.Valid && !seen {
				r.gpuNames[int32(id.Int64)] = name.String
			}
		})
		if err != nil {
			return fmt.Errorf("reading %s: %w", tGPU, err)
		}
	}
	r.procNames = map[int64]string{}
	if r.s.has(tProcesses, "name") && (r.s.has(tProcesses, "pid") || r.s.has(tProcesses, "globalPid")) {
		pid := "pid"
		if !r.s.has(tProcesses, "pid") {
			pid = "(globalPid >> 24) & 16777215"
		}
		err := r.queryIDNames("SELECT "+pid+", name FROM "+tProcesses, func(id sql.NullInt64, name sql.NullString) {
			if id.Valid && name.String != "" {
				r.procNames[id.Int64] = name.String
			}
		})
		if err != nil {
			return fmt.Errorf("reading %s: %w", tProcesses, err)
		}
	}
	return nil
}

// ---- launches ----

// launchAPIPrefixes select the CUDA API calls that launch device work
// (kernels, graphs, copies, sets); other API rows are not read.
var launchAPIPrefixes = []string{"cudaLaunch", "cuLaunch", "cudaGraphLaunch", "cuGraphLaunch",
	"cudaMemcpy", "cuMemcpy", "cudaMemset", "cuMemset"}

// apiName strips the runtime API's version suffix (_v7000).
func apiName(s string) string {
	if i := strings.LastIndex(s, "_v"); i > 0 && i+2 < len(s) {
		if _, err := strconv.Atoi(s[i+2:]); err == nil {
			return s[:i]
		}
	}
	return s
}

func isLaunchAPI(name string) bool {
	for _, p := range launchAPIPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func (r *reader) readLaunches(pids map[int64]bool) (map[int64][]event.Launch, error) {
	// API names that launch work, by StringIds id.
	apiIDs := map[int64]uint32{}
	if r.s.has(tStrings, "id", "value") {
		err := rawScan(r.ctx, r.db, "SELECT id, value FROM StringIds WHERE value GLOB 'cu*'", nil, 2, func(v []driver.Value) error {
			id, _ := i64(v[0])
			s, _ := text(v[1])
			if n := apiName(s); isLaunchAPI(n) {
				apiIDs[id] = r.c.Names.ID(n)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(apiIDs) == 0 {
		return nil, nil
	}
	lo, hi, ok, err := rowidRange(r.ctx, r.db, tRuntime)
	if err != nil || !ok {
		return nil, err
	}
	if hi-lo+1 > maxRowSpan {
		return nil, fmt.Errorf("implausible row ids %d..%d", lo, hi)
	}
	pidList := make([]int64, 0, len(pids))
	pidIdx := map[int64]uint16{}
	for p := range pids {
		pidIdx[p] = uint16(len(pidList))
		pidList = append(pidList, p)
	}
	corr := r.s.colOr(tRuntime, "correlationId", "0")
	q := "SELECT start, end, globalTid, " + corr + ", nameId FROM " + tRuntime + " WHERE rowid BETWEEN ? AND ?"
	parts := chunks(lo, hi, workers())
	all := make([]event.Launch, hi-lo+1)
	adviseHuge(all)
	keys := make([]uint16, hi-lo+1)
	ns := make([]int, len(parts))
	fns := make([]func() error, len(parts))
	for i, p := range parts {
		off := int(p[0] - lo)
		out, outKeys := all[off:off+int(p[1]-p[0]+1)], keys[off:]
		fns[i] = func() error {
			n := 0
			lastPID, lastIdx := int64(-1), -1
			lastNameID, lastName, lastOK := int64(-1), uint32(0), false
			err := intScan(r.ctx, r.db, q, []int64{p[0], p[1]}, 5, func(vals []int64, nulls []uint32) error {
				for row := range nulls {
					v := vals[row*5 : row*5+5 : row*5+5]
					if nulls[row]&(1<<4) != 0 {
						continue
					}
					if v[4] != lastNameID {
						lastName, lastOK = apiIDs[v[4]]
						lastNameID = v[4]
					}
					if !lastOK {
						continue
					}
					name := lastName
					gtid := v[2]
					pid := (gtid >> 24) & 0xFFFFFF
					if pid != lastPID {
						idx, ok := pidIdx[pid]
						lastPID, lastIdx = pid, int(idx)
						if !ok {
							lastIdx = -1
						}
					}
					if lastIdx < 0 || n >= len(out) {
						continue
					}
					out[n] = event.Launch{Start: v[0], End: v[1], Correlation: uint64(v[3]), TID: gtid & 0xFFFFFF, Name: name}
					outKeys[n] = uint16(lastIdx)
					n++
				}
				return nil
			})
			ns[i] = n
			return err
		}
	}
	if err := runAll(fns); err != nil {
		return nil, err
	}
	dst := 0
	for i, p := range parts {
		off := int(p[0] - lo)
		copy(all[dst:], all[off:off+ns[i]])
		copy(keys[dst:], keys[off:off+ns[i]])
		dst += ns[i]
	}
	all, keys = all[:dst], keys[:dst]
	out := map[int64][]event.Launch{}
	if len(pidList) == 1 {
		if len(all) > 0 {
			out[pidList[0]] = all[:len(all):len(all)]
		}
		return out, nil
	}
	for i, ls := range partition(all, keys, len(pidList)) {
		if len(ls) > 0 {
			out[pidList[i]] = ls
		}
	}
	return out, nil
}

// ---- NVTX ----

// nvtxRangeTypes are the ENUM_NSYS_EVENT_TYPE names of NVTX ranges, with
// the ids used when the enum table is absent.
var nvtxRangeTypes = map[string]int64{"NvtxPushPopRange": 59, "NvtxStartEndRange": 60,
	"NvtxtPushPopRange": 70, "NvtxtStartEndRange": 71}

func (r *reader) nvtxTypeIDs() []int64 {
	var ids []int64
	if r.s.has(tEventType, "id", "name") {
		rows, err := r.db.QueryContext(r.ctx, "SELECT id, name FROM "+tEventType)
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
	names := r.c.Names
	err := rawScan(r.ctx, r.db, q, nil, 5, func(v []driver.Value) error {
		gtid, _ := i64(v[2])
		pid := (gtid >> 24) & 0xFFFFFF
		if !pids[pid] {
			return nil
		}
		start, ok := i64(v[0])
		if !ok {
			return nil
		}
		end, ok := i64(v[1])
		if !ok {
			end = openEnd
		} else if end < start {
			end = start
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

// ---- CUDA graph nodes ----

func (r *reader) readGraphNodes(pids map[int64]bool) (map[int64][]event.GraphNode, error) {
	q := "SELECT start, end, globalTid, graphNodeId, " + r.s.colOr(tGraphNodes, "originalGraphNodeId", "NULL") + " FROM " + tGraphNodes
	out := map[int64][]event.GraphNode{}
	err := rawScan(r.ctx, r.db, q, nil, 5, func(v []driver.Value) error {
		gtid, _ := i64(v[2])
		pid := (gtid >> 24) & 0xFFFFFF
		if !pids[pid] {
			return nil
		}
		start, _ := i64(v[0])
		end, _ := i64(v[1])
		node, _ := i64(v[3])
		orig, _ := i64(v[4])
		out[pid] = append(out[pid], event.GraphNode{Node: node, Original: orig, Start: start, End: end, TID: gtid & 0xFFFFFF})
		return nil
	})
	return out, err
}
