package nsys

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/servecmp/servecmp/event"
)

// realFile finds a real export: testdata/nsys in this repository first,
// then ../shared/testdata/nsys beside the repository; it skips the test
// when neither has it.
func realFile(t *testing.T, name string) string {
	t.Helper()
	for _, dir := range []string{
		filepath.Join("..", "testdata", "nsys"),
		filepath.Join("..", "..", "shared", "testdata", "nsys"),
	} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skipf("%s not present", name)
	return ""
}

func sqlInt(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

func sqlText(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var s sql.NullString
	err := db.QueryRow(q).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return ""
	}
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s.String
}

func hasTable(t *testing.T, db *sql.DB, name string) bool {
	return sqlInt(t, db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='"+name+"'") > 0
}

// The nine real exports, with what SOURCES.md says about them. Every
// figure is also recomputed with plain SQL below.
var realExports = []struct {
	name    string
	kernels int // -1: no kernel table
	gpu     string
	version string
}{
	{"pytorch-nvfuser-matmul-test-h200-nsys2024.6.sqlite", 19, "NVIDIA H200", "2024.6.2.25"},
	{"pytorch-nvfuser-crossentropy-bench-h200-nsys2025.1.sqlite", 18, "NVIDIA H200", "2025.1.1.110"},
	{"pytorch-nvfuser-matmul-test-8xh100-node-nsys2024.6.sqlite", 19, "NVIDIA H100 80GB HBM3", "2024.6.2.25"},
	{"pytorch-cnn-dlprof-rtx2070-nsys2022.1.sqlite", 46, "NVIDIA GeForce RTX 2070 SUPER", "2022.1.3.3"},
	{"tensorrt-conv-rtx3090-nsys2023.1.sqlite", 36, "NVIDIA GeForce RTX 3090", "2023.1.2.43"},
	{"gpu-db-query-quadro-rtx6000-nsys2021.sqlite", 12, "Quadro RTX 6000", ""},
	{"rodinia-gaussian-8190-kernels-nsys2022.4.sqlite", 8190, "NVIDIA GeForce RTX 3090", "2022.4.2.1"},
	{"cudaq-vqe-8xh100-no-kernel-table-nsys2023.4.sqlite", -1, "", ""},
	{"climate-unet-crashed-no-kernel-table-nsys2025.5.sqlite", -1, "", ""},
}

func TestRealExports(t *testing.T) {
	for _, x := range realExports {
		t.Run(x.name, func(t *testing.T) {
			path := realFile(t, x.name)
			db := openRO(t, path)
			c, err := Read(context.Background(), db, path, event.All)
			if !hasTable(t, db, tKernel) {
				if x.kernels != -1 {
					t.Fatalf("SOURCES.md says %d kernels but the file has no kernel table", x.kernels)
				}
				if !errors.Is(err, ErrNoKernels) {
					t.Fatalf("err = %v, want ErrNoKernels", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read: %v", err)
			}

			// kernels: the file's own count, and the documented figure
			kernels := sqlInt(t, db, "SELECT count(*) FROM "+tKernel+" WHERE start > 0 AND end >= start")
			if int(kernels) != x.kernels {
				t.Errorf("SQL counts %d valid kernels, SOURCES.md says %d", kernels, x.kernels)
			}
			count := map[event.Kind]int{}
			for _, r := range c.Ranks {
				for _, w := range r.Work {
					count[w.Kind]++
					if w.End < w.Start || c.Names.Name(w.Name) == "" {
						t.Fatalf("bad work %+v", w)
					}
				}
			}
			if count[event.Kernel] != int(kernels) {
				t.Errorf("read %d kernels, SQL counts %d", count[event.Kernel], kernels)
			}
			for table, kind := range map[string]event.Kind{tMemcpy: event.Memcpy, tMemset: event.Memset} {
				want := 0
				if hasTable(t, db, table) {
					want = int(sqlInt(t, db, "SELECT count(*) FROM "+table+" WHERE start > 0 AND end >= start"))
				}
				if count[kind] != want {
					t.Errorf("read %d %ss, SQL counts %d", count[kind], kind, want)
				}
			}

			// ranks: distinct (pid, device) pairs of device work
			pairs := sqlInt(t, db, "SELECT count(*) FROM (SELECT DISTINCT (globalPid >> 24) & 16777215, deviceId FROM "+tKernel+")")
			if len(c.Ranks) != int(pairs) {
				t.Errorf("%d ranks, SQL has %d (pid, device) pairs with kernels", len(c.Ranks), pairs)
			}

			// GPU name and version
			gpu := sqlText(t, db, "SELECT g.name FROM TARGET_INFO_GPU g JOIN (SELECT deviceId FROM "+tKernel+" LIMIT 1) k ON g.id = k.deviceId LIMIT 1")
			if gpu != x.gpu {
				t.Errorf("SQL GPU %q, SOURCES.md %q", gpu, x.gpu)
			}
			if c.Ranks[0].GPU != gpu {
				t.Errorf("rank GPU %q, want %q", c.Ranks[0].GPU, gpu)
			}
			version := ""
			for _, tb := range []string{"META_DATA_EXPORT", "EXPORT_META_DATA"} {
				if hasTable(t, db, tb) {
					version = sqlText(t, db, "SELECT value FROM "+tb+" WHERE name = 'EXPORT_PRODUCT_VERSION'")
					break
				}
			}
			if version != x.version || c.ToolVersion != version || c.Ranks[0].ToolVersion != version {
				t.Errorf("version: read %q, SQL %q, SOURCES.md %q", c.ToolVersion, version, x.version)
			}

			// every kernel joins one launch of its process
			if hasTable(t, db, tRuntime) {
				joined := sqlInt(t, db, "SELECT count(*) FROM "+tKernel+" k JOIN "+tRuntime+
					" r ON r.correlationId = k.correlationId AND (r.globalTid >> 24) = (k.globalPid >> 24)")
				corr := map[uint64]bool{}
				for _, l := range c.Ranks[0].Launches {
					corr[l.Correlation] = true
				}
				matched := 0
				for _, w := range c.Ranks[0].Work {
					if w.Kind == event.Kernel && corr[w.Correlation] {
						matched++
					}
				}
				if len(c.Ranks) == 1 && matched != int(joined) {
					t.Errorf("%d kernels match a read launch, SQL joins %d", matched, joined)
				}
			}

			// NVTX ranges of the profiled processes
			if hasTable(t, db, tNVTX) && len(c.Ranks) == 1 {
				want := sqlInt(t, db, "SELECT count(*) FROM "+tNVTX+" WHERE eventType IN (59, 60, 70, 71) AND (globalTid >> 24) & 16777215 = "+
					strconv.FormatInt(c.Ranks[0].PID, 10))
				if len(c.Ranks[0].Ranges) != int(want) {
					t.Errorf("%d NVTX ranges, SQL counts %d", len(c.Ranks[0].Ranges), want)
				}
			}
			for _, r := range c.Ranks {
				if r.SpanStart < 0 || r.SpanEnd < r.SpanStart {
					t.Errorf("rank %d/%d span %d..%d", r.PID, r.Device, r.SpanStart, r.SpanEnd)
				}
			}
		})
	}
}

func TestRealRankFromEnv(t *testing.T) {
	path := realFile(t, "pytorch-nvfuser-matmul-test-8xh100-node-nsys2024.6.sqlite")
	c := read(t, path, event.Options{})
	if len(c.Ranks) != 1 {
		t.Fatalf("ranks = %d", len(c.Ranks))
	}
	if c.CapturedRank != "0" || c.CapturedRankFrom != "env:RANK" {
		t.Errorf("captured rank %q from %q, want 0 from env:RANK", c.CapturedRank, c.CapturedRankFrom)
	}
	if c.Env["WORLD_SIZE"] != "1" || c.Env["SLURM_PROCID"] != "0" {
		t.Errorf("env WORLD_SIZE=%q SLURM_PROCID=%q", c.Env["WORLD_SIZE"], c.Env["SLURM_PROCID"])
	}
	if c.GraphTraceMode != "graph" {
		t.Errorf("graph trace mode %q", c.GraphTraceMode)
	}
	if c.Ranks[0].Process != "./bin/test_matmul" {
		t.Errorf("process %q", c.Ranks[0].Process)
	}
}

// TestRealOverlap checks that concurrent kernels on two streams survive the
// read: the overlapping pairs found in the read work equal those found by
// a SQL self-join.
func TestRealOverlap(t *testing.T) {
	path := realFile(t, "pytorch-cnn-dlprof-rtx2070-nsys2022.1.sqlite")
	db := openRO(t, path)
	want := sqlInt(t, db, "SELECT count(*) FROM "+tKernel+" a JOIN "+tKernel+" b ON a.rowid < b.rowid AND a.start < b.end AND b.start < a.end")
	if want == 0 {
		t.Fatal("the sample should have overlapping kernels")
	}
	c := read(t, path, event.Options{})
	var ks []event.Work
	streams := map[uint32]bool{}
	for _, w := range c.Ranks[0].Work {
		if w.Kind == event.Kernel {
			ks = append(ks, w)
			streams[w.Stream] = true
		}
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].Start < ks[j].Start })
	got := 0
	for i := range ks {
		for j := i + 1; j < len(ks) && ks[j].Start < ks[i].End; j++ {
			got++
		}
	}
	if int64(got) != want {
		t.Errorf("%d overlapping pairs, SQL finds %d", got, want)
	}
	if len(streams) != 2 {
		t.Errorf("%d streams, want 2", len(streams))
	}
}

// TestRealNames compares each kernel's name with the demangled name SQL
// resolves, as a multiset.
func TestRealNames(t *testing.T) {
	path := realFile(t, "tensorrt-conv-rtx3090-nsys2023.1.sqlite")
	db := openRO(t, path)
	rows, err := db.Query("SELECT s.value FROM " + tKernel + " k JOIN StringIds s ON s.id = k.demangledName")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		want = append(want, s)
	}
	rows.Close()
	c := read(t, path, event.Options{})
	var got []string
	for _, w := range c.Ranks[0].Work {
		if w.Kind == event.Kernel {
			got = append(got, c.Names.Name(w.Name))
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("kernel names differ from SQL")
	}
	// registered NVTX strings (textId) resolve
	for _, rg := range c.Ranks[0].Ranges {
		if c.Names.Name(rg.Text) == "" {
			t.Errorf("NVTX range without text: %+v", rg)
			break
		}
	}
}
