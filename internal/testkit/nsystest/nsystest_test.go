package nsystest

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

func open(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func scalar(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var s sql.NullString
	if err := db.QueryRow(q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s.String
}

func hasTable(t *testing.T, db *sql.DB, name string) bool {
	return scalar(t, db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='"+name+"'") == "1"
}

func hasColumn(t *testing.T, db *sql.DB, table, col string) bool {
	return scalar(t, db, "SELECT count(*) FROM pragma_table_info('"+table+"') WHERE name='"+col+"'") == "1"
}

func TestSchemas(t *testing.T) {
	for _, tc := range []struct {
		s                                          Schema
		mangled, green, procs, meta, capture, enum string
	}{
		{Schema2021, "", "", "", "", "", ""},
		{Schema2022, "mangledName", "", "PROCESSES", "EXPORT_META_DATA", "", "ENUM_CUDA_KRENEL_LAUNCH_TYPE"},
		{Schema2024, "mangledName", "greenContextId", "PROCESSES", "META_DATA_EXPORT", "META_DATA_CAPTURE", "ENUM_CUDA_KERNEL_LAUNCH_TYPE"},
	} {
		t.Run(tc.s.String(), func(t *testing.T) {
			b := New(tc.s)
			b.Process(42, "python3")
			b.GPU(0, "NVIDIA H100 80GB HBM3")
			b.Env("RANK", "3")
			b.Host("node1")
			b.GraphTraceMode("Node")
			b.Kernel(K{PID: 42, Stream: 7, Start: 1000, End: 2000, Name: "void at::native::foo<float>(int)"})
			b.Kernel(K{PID: 42, Stream: 7, Start: 3000, End: 4000, Name: "g", GraphNode: 5, Corr: 99})
			b.Kernel(K{PID: 42, Stream: 7, Start: 4000, End: 5000, Name: "h", GraphNode: 6, Corr: 99})
			b.Memcpy(M{PID: 42, Start: 6000, End: 7000, CopyKind: 1})
			b.NVTX(42, 43, 500, 8000, "step")
			b.GraphNodeEvent(42, 42, 5, 1, 100, 200)
			db := open(t, b.Write(t))
			if got := scalar(t, db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"); got != "3" {
				t.Errorf("kernels = %s", got)
			}
			// one launch per regular kernel, one per graph launch, one per memcpy
			if got := scalar(t, db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"); got != "3" {
				t.Errorf("runtime rows = %s", got)
			}
			if got := scalar(t, db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName WHERE k.start = 1000"); got != "foo" {
				t.Errorf("short name = %q", got)
			}
			if got := scalar(t, db, "SELECT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1"); got != "42" {
				t.Errorf("pid = %s", got)
			}
			if got := scalar(t, db, "SELECT globalTid & 16777215 FROM NVTX_EVENTS"); got != "43" {
				t.Errorf("tid = %s", got)
			}
			check := func(table, want string) {
				if want == "" {
					return
				}
				if !hasTable(t, db, want) {
					t.Errorf("no table %s", want)
				}
			}
			check("", tc.procs)
			check("", tc.meta)
			check("", tc.capture)
			check("", tc.enum)
			if got := hasColumn(t, db, "CUPTI_ACTIVITY_KIND_KERNEL", "mangledName"); got != (tc.mangled != "") {
				t.Errorf("mangledName present = %v", got)
			}
			if got := hasColumn(t, db, "CUPTI_ACTIVITY_KIND_KERNEL", "greenContextId"); got != (tc.green != "") {
				t.Errorf("greenContextId present = %v", got)
			}
			if tc.s == Schema2021 {
				for _, n := range []string{"PROCESSES", "EXPORT_META_DATA", "META_DATA_EXPORT", "ENUM_NSYS_EVENT_TYPE", "TARGET_INFO_SYSTEM_ENV"} {
					if hasTable(t, db, n) {
						t.Errorf("2021 export has %s", n)
					}
				}
			}
			if tc.capture != "" {
				if got := scalar(t, db, "SELECT value FROM META_DATA_CAPTURE WHERE name='PROCESS_0:ENVIRONMENT_VARIABLE'"); got != `RANK="3"` {
					t.Errorf("env row = %q", got)
				}
			}
		})
	}
}

func TestLazyTables(t *testing.T) {
	b := New(Schema2024)
	b.Memset(M{PID: 1, Start: 10, End: 20})
	db := open(t, b.Write(t))
	if hasTable(t, db, "CUPTI_ACTIVITY_KIND_KERNEL") {
		t.Error("kernel table created without kernels")
	}
	if !hasTable(t, db, "CUPTI_ACTIVITY_KIND_MEMSET") {
		t.Error("no memset table")
	}
}

func TestLooseNulls(t *testing.T) {
	b := New(Schema2024)
	b.Kernel(K{PID: 1, Start: 10, End: 20, Name: "a"})
	b.Kernel(K{PID: 1, Start: 30, NullEnd: true, Name: "b"})
	b.Kernel(K{PID: 1, Start: 40, End: 50, NullName: true})
	db := open(t, b.Write(t))
	if got := scalar(t, db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end IS NULL OR demangledName IS NULL"); got != "2" {
		t.Errorf("null rows = %s", got)
	}
}

// TestManyKernels writes a large generated export; the size is kept small
// unless NSYSTEST_N is set (NSYSTEST_N=1000000 for the benchmark size).
func TestManyKernels(t *testing.T) {
	n := 20000
	if s := os.Getenv("NSYSTEST_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	b := New(Schema2024)
	b.Kernels(n, func(i int) K {
		return K{PID: 7, Stream: int32(i % 4), Start: int64(i) * 1000, End: int64(i)*1000 + 1500, Name: fmt.Sprintf("kernel_%d", i%3000)}
	})
	t0 := time.Now()
	db := open(t, b.Write(t))
	t.Logf("%d kernels written in %v", n, time.Since(t0))
	if got := scalar(t, db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"); got != strconv.Itoa(n) {
		t.Errorf("kernels = %s", got)
	}
	if got := scalar(t, db, "SELECT count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL"); got != strconv.Itoa(min(n, 3000)) {
		t.Errorf("distinct names = %s", got)
	}
}
