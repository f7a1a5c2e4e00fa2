package nsys

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Table names of the export.
const (
	tKernel     = "CUPTI_ACTIVITY_KIND_KERNEL"
	tMemcpy     = "CUPTI_ACTIVITY_KIND_MEMCPY"
	tMemset     = "CUPTI_ACTIVITY_KIND_MEMSET"
	tRuntime    = "CUPTI_ACTIVITY_KIND_RUNTIME"
	tNVTX       = "NVTX_EVENTS"
	tGraphNodes = "CUDA_GRAPH_NODE_EVENTS"
	tStrings    = "StringIds"
	tGPU        = "TARGET_INFO_GPU"
	tSysEnv     = "TARGET_INFO_SYSTEM_ENV"
	tProcesses  = "PROCESSES"
	tCapture    = "META_DATA_CAPTURE"
	tEventType  = "ENUM_NSYS_EVENT_TYPE"
	tMemcpyOper = "ENUM_CUDA_MEMCPY_OPER"
)

// schema is what the file holds: tables and, for the tables the reader
// uses, their columns. It is probed once per file.
type schema struct {
	tables map[string]bool
	cols   map[string]map[string]bool
	pages  map[string]*pageTable // tables the page scanner can read (probePages)
}

func probe(ctx context.Context, db *sql.DB) (*schema, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type IN ('table','view')")
	if err != nil {
		return nil, err
	}
	s := &schema{tables: map[string]bool{}, cols: map[string]map[string]bool{}}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, err
		}
		s.tables[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, t := range []string{tKernel, tMemcpy, tMemset, tRuntime, tNVTX, tGraphNodes, tStrings, tGPU, tSysEnv,
		tProcesses, tCapture, tEventType, tMemcpyOper, "META_DATA_EXPORT", "EXPORT_META_DATA"} {
		if !s.tables[t] {
			continue
		}
		cols := map[string]bool{}
		r, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", t)
		if err != nil {
			return nil, err
		}
		for r.Next() {
			var c string
			if err := r.Scan(&c); err != nil {
				r.Close()
				return nil, err
			}
			cols[c] = true
		}
		r.Close()
		if err := r.Err(); err != nil {
			return nil, err
		}
		s.cols[t] = cols
	}
	return s, nil
}

// has reports whether table t has every column in cols.
func (s *schema) has(t string, cols ...string) bool {
	c := s.cols[t]
	if c == nil {
		return false
	}
	for _, n := range cols {
		if !c[n] {
			return false
		}
	}
	return true
}

// colOr returns column c of table t when present, else the SQL literal def.
func (s *schema) colOr(t, c, def string) string {
	if s.cols[t][c] {
		return c
	}
	return def
}

// need returns an error naming the first missing column of t.
func (s *schema) need(t string, cols ...string) error {
	var missing []string
	for _, c := range cols {
		if !s.cols[t][c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("table %s lacks column(s) %s", t, strings.Join(missing, ", "))
	}
	return nil
}
