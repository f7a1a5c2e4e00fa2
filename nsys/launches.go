package nsys

import (
	"cmp"
	"context"
	"database/sql/driver"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/event"
)

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

// launchAPI is a StringIds id that names a launching API call, with the
// call's name less its version suffix.
type launchAPI struct {
	id   int64
	name string
}

// launchAPIs returns the launching API calls named in StringIds, in table
// order.
func (r *reader) launchAPIs(ctx context.Context) ([]launchAPI, error) {
	var out []launchAPI
	if !r.s.has(tStrings, "id", "value") {
		return nil, nil
	}
	err := rawScan(ctx, r.db.pool, "SELECT id, value FROM StringIds WHERE value GLOB 'cu*'", nil, 2, func(v []driver.Value) error {
		id, _ := i64(v[0])
		s, _ := text(v[1])
		// the scan keeps the id in Launch.Name (uint32) until result
		if n := apiName(s); isLaunchAPI(n) && id >= 0 && id <= math.MaxUint32 {
			out = append(out, launchAPI{id, n})
		}
		return nil
	})
	return out, err
}

// launchReader reads the CUDA API table in the background while device
// work is read: every process's launches, kept raw (Launch.Name holds the
// StringIds id) until result, which filters them by process and interns
// the names. It touches neither the capture nor its Names until then.
type launchReader struct {
	done   chan struct{}
	err    error
	apis   []launchAPI
	bad    int            // launch rows dropped for invalid times
	all    []event.Launch // kept launches, compacted
	keys   []uint16       // index into pids of each launch
	pids   []int64
	byPID  map[int64][]event.Launch // all's launches by process, in correlation order; Name holds the raw id
	cancel context.CancelFunc
}

// startLaunches starts reading launches when opts and the schema ask for
// them; it returns nil otherwise.
func (r *reader) startLaunches() *launchReader {
	if !r.opts.Launches || !r.s.has(tRuntime, "start", "end", "globalTid", "nameId") {
		return nil
	}
	nvtx := r.opts.Ranges && r.s.has(tNVTX, "start", "end", "eventType", "globalTid")
	nodes := r.opts.GraphNodes && r.s.has(tGraphNodes, "start", "end", "globalTid", "graphNodeId")
	if r.opts.LaunchesOnlyWithContext && !nvtx && !nodes {
		return nil // no process can have context
	}
	ctx, cancel := context.WithCancel(r.ctx)
	lr := &launchReader{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(lr.done)
		lr.err = guard(func() error { return r.scanAllLaunches(ctx, lr) })
	}()
	return lr
}

// stop abandons the scan and waits for it.
func (lr *launchReader) stop() {
	if lr != nil {
		lr.cancel()
		<-lr.done
	}
}

// result waits for the scan and returns the launches of the processes in
// pids, their names interned in r.c.Names.
func (lr *launchReader) result(r *reader, pids map[int64]bool) (map[int64][]event.Launch, error) {
	if lr == nil {
		return nil, nil
	}
	<-lr.done
	lr.cancel()
	if lr.bad > 0 {
		r.warnf("dropped %d CUDA API launch calls with invalid times (NULL, not an integer, reversed or out of range)", lr.bad)
	}
	if lr.err != nil || len(pids) == 0 {
		return nil, lr.err
	}
	names := make(map[int64]uint32, len(lr.apis))
	for _, a := range lr.apis {
		names[a.id] = r.c.Names.ID(a.name)
	}
	// keep the processes asked for, and set the names
	out := map[int64][]event.Launch{}
	for pid, ls := range lr.byPID {
		if !pids[pid] {
			continue
		}
		lastRaw, lastName := int64(-1), uint32(0)
		for i := range ls {
			if raw := int64(ls[i].Name); raw != lastRaw {
				lastRaw, lastName = raw, names[raw]
			}
			ls[i].Name = lastName
		}
		out[pid] = ls
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// launchChunk is one rowid range of the CUDA API table and what its scan
// kept.
type launchChunk struct {
	lo, hi int64
	n      int           // rows kept
	bad    int           // launch rows dropped for invalid times
	pidIdx map[int64]int // process → local index
	pids   []int64       // local index → process
}

// scanAllLaunches reads every launch of every process into lr.
func (r *reader) scanAllLaunches(ctx context.Context, lr *launchReader) error {
	apis, err := r.launchAPIs(ctx)
	if err != nil || len(apis) == 0 {
		return err
	}
	lr.apis = apis
	lo, hi, ok, err := rowidRange(ctx, r.db.pool, tRuntime)
	if err != nil || !ok {
		return err
	}
	span, err := rowSpan(tRuntime, lo, hi)
	if err != nil {
		return err
	}
	isAPI := make(map[int64]bool, len(apis))
	for _, a := range apis {
		isAPI[a.id] = true
	}
	q := &rowQuery{table: tRuntime, sels: []sel{{cols: []string{"start"}}, {cols: []string{"end"}}, {cols: []string{"globalTid"}},
		r.s.sel(tRuntime, "correlationId", "0"), {cols: []string{"nameId"}}}}
	parts := r.db.chunks(lo, hi, r.db.parts())
	all := make([]event.Launch, span)
	adviseHuge(all)
	keys := make([]uint16, span)
	chunks := make([]*launchChunk, len(parts))
	fns := make([]func() error, len(parts))
	for i, p := range parts {
		c := &launchChunk{lo: p[0], hi: p[1]}
		chunks[i] = c
		off := int(p[0] - lo)
		fns[i] = func() error { return r.scanLaunches(ctx, c, q, isAPI, all[off:off+int(p[1]-p[0]+1)], keys[off:]) }
	}
	if err := r.db.run(ctx, fns); err != nil {
		return err
	}
	if err := lr.merge(chunks, lo, all, keys); err != nil {
		return err
	}
	// Sorting is done here, while device work may still be read.
	lr.byPID = byProcess(lr.all, lr.keys, lr.pids)
	lr.all, lr.keys = nil, nil
	return nil
}

// merge compacts the chunks' launches, in order, to the front of all and
// maps their local process indexes to lr.pids.
func (lr *launchReader) merge(chunks []*launchChunk, lo int64, all []event.Launch, keys []uint16) error {
	global := map[int64]uint16{}
	dst := 0
	for _, c := range chunks {
		lr.bad += c.bad
		kmap := make([]uint16, len(c.pids))
		for i, p := range c.pids {
			g, ok := global[p]
			if !ok {
				if len(lr.pids) >= 1<<16-1 {
					return fmt.Errorf("more than %d processes", 1<<16-1)
				}
				g = uint16(len(lr.pids))
				global[p] = g
				lr.pids = append(lr.pids, p)
			}
			kmap[i] = g
		}
		off := int(c.lo - lo)
		copy(all[dst:], all[off:off+c.n])
		for i := range c.n {
			keys[dst+i] = kmap[keys[off+i]]
		}
		dst += c.n
	}
	lr.all, lr.keys = all[:dst], keys[:dst]
	return nil
}

// scanLaunches reads the launches of chunk c into out and the chunk-local
// process index of each into keys. Launch.Name holds the raw StringIds id.
func (r *reader) scanLaunches(ctx context.Context, c *launchChunk, q *rowQuery, isAPI map[int64]bool, out []event.Launch, keys []uint16) error {
	return r.db.intScan(ctx, q, c.lo, c.hi, func() scanFn {
		c.n, c.bad, c.pidIdx, c.pids = 0, 0, map[int64]int{}, nil
		lastPID, lastIdx := int64(-1), 0
		lastNameID, lastOK := int64(-1), false
		return func(vals []int64, nulls []uint32) error {
			for row := range nulls {
				v := vals[row*5 : row*5+5 : row*5+5]
				if nulls[row]&(1<<4) != 0 {
					continue
				}
				if v[4] != lastNameID {
					lastNameID, lastOK = v[4], isAPI[v[4]]
				}
				if !lastOK || c.n >= len(out) {
					continue
				}
				if nulls[row]&3 != 0 || !event.HostTimesOK(v[0], v[1]) {
					c.bad++
					continue
				}
				gtid := v[2]
				if pid := (gtid >> 24) & 0xFFFFFF; pid != lastPID {
					idx, err := c.pidIndex(pid)
					if err != nil {
						return err
					}
					lastPID, lastIdx = pid, idx
				}
				out[c.n] = event.Launch{Start: v[0], End: v[1], Correlation: uint64(v[3]), TID: gtid & 0xFFFFFF, Name: uint32(v[4])}
				keys[c.n] = uint16(lastIdx)
				c.n++
			}
			return nil
		}
	})
}

// pidIndex returns the chunk-local index of process pid.
func (c *launchChunk) pidIndex(pid int64) (int, error) {
	idx, ok := c.pidIdx[pid]
	if !ok {
		if len(c.pids) >= 1<<16-1 {
			return 0, fmt.Errorf("more than %d processes", 1<<16-1)
		}
		idx = len(c.pids)
		c.pidIdx[pid] = idx
		c.pids = append(c.pids, pid)
	}
	return idx, nil
}

// byProcess splits launches by process (keys index pidList), each in
// correlation order; processes without launches are left out.
func byProcess(all []event.Launch, keys []uint16, pidList []int64) map[int64][]event.Launch {
	out := map[int64][]event.Launch{}
	if len(pidList) == 1 {
		if len(all) > 0 {
			sortByCorrelation(all)
			out[pidList[0]] = all[:len(all):len(all)]
		}
		return out
	}
	for i, ls := range partition(all, keys, len(pidList)) {
		if len(ls) > 0 {
			sortByCorrelation(ls)
			out[pidList[i]] = ls
		}
	}
	return out
}

// sortByCorrelation puts launches in correlation order. The common shape,
// a long sorted run followed by a short rest (calls of one kind written
// after the others), takes one backward merge with a buffer the size of
// the rest; anything else takes a comparison sort.
func sortByCorrelation(ls []event.Launch) {
	i := 1
	for i < len(ls) && ls[i-1].Correlation <= ls[i].Correlation {
		i++
	}
	if i >= len(ls) {
		return
	}
	if len(ls)-i > len(ls)/8 {
		slices.SortFunc(ls, cmpCorrelation)
		return
	}
	rest := slices.Clone(ls[i:])
	slices.SortStableFunc(rest, cmpCorrelation)
	a, b := i-1, len(rest)-1
	for k := len(ls) - 1; b >= 0; k-- {
		if a >= 0 && ls[a].Correlation > rest[b].Correlation {
			ls[k] = ls[a]
			a--
		} else {
			ls[k] = rest[b]
			b--
		}
	}
}

func cmpCorrelation(a, b event.Launch) int { return cmp.Compare(a.Correlation, b.Correlation) }
