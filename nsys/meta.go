package nsys

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

func (r *reader) queryPairs(q string, fn func(a, b string)) error {
	rows, err := r.db.pool.QueryContext(r.ctx, q)
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
	rows, err := r.db.pool.QueryContext(r.ctx, q)
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

// readMeta reads the tool version, host, environment, GPU and process
// names.
func (r *reader) readMeta() error {
	for _, step := range []func() error{r.readVersion, r.readEnv, r.readGPUs, r.readProcesses} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) readVersion() error {
	for _, t := range []string{"META_DATA_EXPORT", "EXPORT_META_DATA"} {
		if !r.s.has(t, "name", "value") {
			continue
		}
		err := r.queryPairs("SELECT name, value FROM "+t+" WHERE name = 'EXPORT_PRODUCT_VERSION'", func(_, v string) {
			r.c.ToolVersion = v
		})
		if err != nil {
			return fmt.Errorf("reading %s: %w", t, err)
		}
		if r.c.ToolVersion != "" {
			break
		}
	}
	return nil
}

// readEnv reads the host name, the graph trace mode and the environment:
// the system's device environment first, the launched process's own
// record winning.
func (r *reader) readEnv() error {
	c := r.c
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
				env[k] = val
			}
		})
		if err != nil {
			return fmt.Errorf("reading %s: %w", tCapture, err)
		}
	}
	if len(env) > 0 {
		c.Env = env
	}
	return nil
}

func (r *reader) readGPUs() error {
	r.gpuNames = map[int32]string{}
	if !r.s.has(tGPU, "id", "name") {
		return nil
	}
	err := r.queryIDNames("SELECT id, name FROM "+tGPU, func(id sql.NullInt64, name sql.NullString) {
		if !id.Valid || !in32(id.Int64) {
			return // no device id beyond int32 is read (see checkWork)
		}
		if _, seen := r.gpuNames[int32(id.Int64)]; !seen {
			r.gpuNames[int32(id.Int64)] = name.String
		}
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", tGPU, err)
	}
	return nil
}

func (r *reader) readProcesses() error {
	r.procNames = map[int64]string{}
	if !r.s.has(tProcesses, "name") || !(r.s.has(tProcesses, "pid") || r.s.has(tProcesses, "globalPid")) {
		return nil
	}
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
	return nil
}
