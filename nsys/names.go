package nsys

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"

	"github.com/servecmp/servecmp/event"
)

// nameIndex maps the distinct StringIds ids of scanned work to Names ids:
// a dense table when ids are small, else a map.
type nameIndex struct {
	dense  []uint32 // id → names id (during collection: 1 = seen)
	sparse map[uint32]uint32
	ids    []int64 // distinct ids, in order of first use
}

// collectNames returns the index of the raw StringIds ids in all.
func collectNames(all []event.Work) *nameIndex {
	maxID := uint32(0)
	for i := range all {
		if n := all[i].Name; n < rawSpecial && n > maxID {
			maxID = n
		}
	}
	x := &nameIndex{}
	if maxID < 1<<24 {
		x.dense = make([]uint32, maxID+1)
	} else {
		x.sparse = map[uint32]uint32{}
	}
	for i := range all {
		n := all[i].Name
		if n >= rawSpecial {
			continue
		}
		if x.dense != nil {
			if x.dense[n] == 0 {
				x.dense[n] = 1
				x.ids = append(x.ids, int64(n))
			}
		} else if _, ok := x.sparse[n]; !ok {
			x.sparse[n] = 0
			x.ids = append(x.ids, int64(n))
		}
	}
	return x
}

func (x *nameIndex) set(id int64, nid uint32) {
	if x.dense != nil {
		x.dense[id] = nid
	} else {
		x.sparse[uint32(id)] = nid
	}
}

func (x *nameIndex) get(n uint32) uint32 {
	if x.dense != nil {
		return x.dense[n]
	}
	return x.sparse[n]
}

// resolveWorkNames turns raw name codes into Names ids.
func (r *reader) resolveWorkNames(all []event.Work, nullNames int) error {
	x := collectNames(all)
	strs, err := r.lookupStrings(x.ids)
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
	for _, id := range x.ids {
		if s, ok := strs[id]; ok && s != "" {
			x.set(id, names.ID(s))
		} else {
			x.set(id, unnamedID())
		}
	}
	special := r.specialNames()
	dangling := 0
	for i := range all {
		w := &all[i]
		switch n := w.Name; {
		case n < rawSpecial:
			w.Name = x.get(n)
			if w.Name == unnamed && unnamed != 0 {
				dangling++
			}
		case n == rawUnnamed:
			w.Name = unnamedID()
		default:
			w.Name = special(n)
		}
	}
	if nullNames+dangling > 0 {
		r.warnf("%d kernels had no name (NULL or unknown string id); named %q", nullNames+dangling, UnnamedKernel)
	}
	return nil
}

// specialNames returns a function giving the Names id of a memcpy or
// memset raw code, looking each up once.
func (r *reader) specialNames() func(n uint32) uint32 {
	var special [256]uint32
	var labels map[int64]string
	names := r.c.Names
	return func(n uint32) uint32 {
		code := n - rawSpecial
		if special[code] != 0 {
			return special[code]
		}
		if n == rawMemset {
			special[code] = names.ID(MemsetName)
			return special[code]
		}
		if labels == nil {
			labels = r.memcpyLabels()
		}
		label, ok := labels[int64(code)]
		if !ok {
			label = "Unknown"
		}
		special[code] = names.ID("[CUDA memcpy " + label + "]")
		return special[code]
	}
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
		return out, r.scanStrings("SELECT id, value FROM StringIds", nil, want, out)
	}
	slices.Sort(ids)
	// Query in batches with IN lists; the id is the table's rowid.
	const batch = 500
	for i := 0; i < len(ids); i += batch {
		part := ids[i:min(i+batch, len(ids))]
		q := "SELECT id, value FROM StringIds WHERE id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(part)), ",") + ")"
		if err := r.scanStrings(q, intArgs(part), nil, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanStrings runs q, whose columns are StringIds' id and value, and
// stores the values of the ids in want (every id when want is nil) in out.
func (r *reader) scanStrings(q string, args []driver.NamedValue, want map[int64]bool, out map[int64]string) error {
	err := rawScan(r.ctx, r.db.pool, q, args, 2, func(v []driver.Value) error {
		id, _ := i64(v[0])
		if want == nil || want[id] {
			s, _ := text(v[1])
			out[id] = s
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading StringIds: %w", err)
	}
	return nil
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
	rows, err := r.db.pool.QueryContext(r.ctx, "SELECT id, label FROM "+tMemcpyOper)
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
