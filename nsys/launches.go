package nsys

import (
	"database/sql/driver"
	"fmt"
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

// launchAPIIDs returns the Names id of each StringIds id that names a
// launching API call.
func (r *reader) launchAPIIDs() (map[int64]uint32, error) {
	apiIDs := map[int64]uint32{}
	if !r.s.has(tStrings, "id", "value") {
		return apiIDs, nil
	}
	err := rawScan(r.ctx, r.db.pool, "SELECT id, value FROM StringIds WHERE value GLOB 'cu*'", nil, 2, func(v []driver.Value) error {
		id, _ := i64(v[0])
		s, _ := text(v[1])
		if n := apiName(s); isLaunchAPI(n) {
			apiIDs[id] = r.c.Names.ID(n)
		}
		return nil
	})
	return apiIDs, err
}

// launchScan is the state of one process-filtered scan of the CUDA API
// table.
type launchScan struct {
	apiIDs map[int64]uint32
	pidIdx map[int64]uint16
}

// readLaunches reads the launching CUDA API calls of the processes in
// pids.
func (r *reader) readLaunches(pids map[int64]bool) (map[int64][]event.Launch, error) {
	apiIDs, err := r.launchAPIIDs()
	if err != nil || len(apiIDs) == 0 {
		return nil, err
	}
	lo, hi, ok, err := rowidRange(r.ctx, r.db.pool, tRuntime)
	if err != nil || !ok {
		return nil, err
	}
	if hi-lo+1 > maxRowSpan {
		return nil, fmt.Errorf("implausible row ids %d..%d", lo, hi)
	}
	ls := &launchScan{apiIDs: apiIDs, pidIdx: map[int64]uint16{}}
	pidList := make([]int64, 0, len(pids))
	for p := range pids {
		ls.pidIdx[p] = uint16(len(pidList))
		pidList = append(pidList, p)
	}
	q := "SELECT start, end, globalTid, " + r.s.colOr(tRuntime, "correlationId", "0") + ", nameId FROM " + tRuntime +
		" WHERE rowid BETWEEN ? AND ?"
	parts := r.db.chunks(lo, hi, workers())
	all := make([]event.Launch, hi-lo+1)
	adviseHuge(all)
	keys := make([]uint16, hi-lo+1)
	ns := make([]int, len(parts))
	fns := make([]func() error, len(parts))
	for i, p := range parts {
		off := int(p[0] - lo)
		fns[i] = func() (err error) {
			ns[i], err = r.scanLaunches(ls, q, p, all[off:off+int(p[1]-p[0]+1)], keys[off:])
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
	return byProcess(all[:dst], keys[:dst], pidList), nil
}

// scanLaunches reads the launches of one rowid range p into out and the
// process index of each into keys, and returns how many it kept.
func (r *reader) scanLaunches(ls *launchScan, q string, p [2]int64, out []event.Launch, keys []uint16) (int, error) {
	n := 0
	lastPID, lastIdx := int64(-1), -1
	lastNameID, lastName, lastOK := int64(-1), uint32(0), false
	err := r.db.intScan(r.ctx, q, []int64{p[0], p[1]}, 5, func(vals []int64, nulls []uint32) error {
		for row := range nulls {
			v := vals[row*5 : row*5+5 : row*5+5]
			if nulls[row]&(1<<4) != 0 {
				continue
			}
			if v[4] != lastNameID {
				lastName, lastOK = ls.apiIDs[v[4]]
				lastNameID = v[4]
			}
			if !lastOK {
				continue
			}
			gtid := v[2]
			if pid := (gtid >> 24) & 0xFFFFFF; pid != lastPID {
				idx, ok := ls.pidIdx[pid]
				lastPID, lastIdx = pid, int(idx)
				if !ok {
					lastIdx = -1
				}
			}
			if lastIdx < 0 || n >= len(out) {
				continue
			}
			out[n] = event.Launch{Start: v[0], End: v[1], Correlation: uint64(v[3]), TID: gtid & 0xFFFFFF, Name: lastName}
			keys[n] = uint16(lastIdx)
			n++
		}
		return nil
	})
	return n, err
}

// byProcess splits launches by process (keys index pidList); processes
// without launches are left out.
func byProcess(all []event.Launch, keys []uint16, pidList []int64) map[int64][]event.Launch {
	out := map[int64][]event.Launch{}
	if len(pidList) == 1 {
		if len(all) > 0 {
			out[pidList[0]] = all[:len(all):len(all)]
		}
		return out
	}
	for i, ls := range partition(all, keys, len(pidList)) {
		if len(ls) > 0 {
			out[pidList[i]] = ls
		}
	}
	return out
}
