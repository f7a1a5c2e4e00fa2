// Package nsystest writes small Nsight-Systems-shaped SQLite exports for
// tests and benchmarks.
//
// A Builder collects processes, GPUs, kernels, copies, NVTX ranges and
// metadata, then writes them in one transaction with the table and column
// layout of a chosen nsys schema generation (Schema2021, Schema2022,
// Schema2024). Column lists follow real exports, including columns that
// servecmp never reads, so that readers are exercised against realistic
// files.
//
// Conventions, as in real exports:
//   - times are int64 ns on the session timeline;
//   - globalPid = 1<<48 | pid<<24 and globalTid = globalPid | tid (the top
//     bits stand for the hardware/VM id);
//   - every string (kernel names, API names, registered NVTX strings) lives
//     in StringIds and is referred to by id;
//   - GPU-activity tables are created lazily: a table exists only when a row
//     of its kind was added (EnsureTable creates an empty one).
//
// Kernels are kept in memory until Write; Kernels(n, gen) streams generated
// kernels at write time instead, so a million-kernel export costs no Go
// memory.
package nsystest

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3"
)

// Schema is an nsys export schema generation.
type Schema int

// Schema generations.
const (
	// Schema2021 is a 2021.x export: no mangledName, no metadata table,
	// no PROCESSES, no ENUM_* tables, no TARGET_INFO_SYSTEM_ENV.
	Schema2021 Schema = iota + 1
	// Schema2022 is a 2022.4-style export (schema 3.0): EXPORT_META_DATA,
	// ENUM_* tables with the ENUM_CUDA_KRENEL_LAUNCH_TYPE misspelling,
	// PROCESSES, TARGET_INFO_SYSTEM_ENV; no META_DATA_CAPTURE.
	Schema2022
	// Schema2024 is a 2024.6-style export (schema 3.16): META_DATA_EXPORT,
	// META_DATA_CAPTURE, greenContextId columns, NVTX binaryData.
	Schema2024
)

// String names the schema.
func (s Schema) String() string {
	switch s {
	case Schema2021:
		return "2021"
	case Schema2022:
		return "2022"
	case Schema2024:
		return "2024"
	}
	return "unknown"
}

// K is one kernel. Zero fields get defaults: Grid and Block {1,1,1},
// Corr a fresh per-process correlation id, TID = PID.
type K struct {
	PID, TID    int64
	Device      int32
	Stream      int32
	Start, End  int64
	Name        string // demangled name
	Short       string // short name; derived from Name when empty
	Grid, Block [3]int32
	Corr        uint64
	GraphNode   int64 // non-zero: replayed inside a CUDA graph traced per node
	// NoLaunch leaves out the runtime launch row.
	NoLaunch bool
	// LaunchStart, LaunchEnd place the launch row; zero places it at
	// LaunchWindow(Start).
	LaunchStart, LaunchEnd int64
	// Driver writes the launch as a driver-API row (cuLaunchKernel).
	Driver bool
	// Invalid-row knobs (they make the table's columns nullable).
	NullStart, NullEnd, NullName bool
	// NameID, when non-zero, is written raw as demangledName (and
	// shortName), e.g. a dangling StringIds id.
	NameID int64
}

// M is one memcpy or memset.
type M struct {
	PID, TID   int64
	Device     int32
	Stream     int32
	Start, End int64
	CopyKind   int   // memcpy: ENUM_CUDA_MEMCPY_OPER id (1 HtoD, 2 DtoH, 8 DtoD...)
	Bytes      int64 // default 4096
	Corr       uint64
	GraphNode  int64
	NoLaunch   bool
}

// N is one NVTX event.
type N struct {
	PID, TID   int64
	Start, End int64
	NullEnd    bool // never-closed range
	Type       int  // ENUM_NSYS_EVENT_TYPE id; 0 = 59 (push/pop)
	Text       string
	Registered bool // store Text as a registered string (textId) instead of text
	Domain     int64
}

// L is one extra CUDA API row in CUPTI_ACTIVITY_KIND_RUNTIME.
type L struct {
	PID, TID   int64
	Start, End int64
	Corr       uint64
	Name       string // e.g. "cudaStreamSynchronize_v3020"
	Driver     bool
}

type graphEvent struct {
	pid, tid, node, original, start, end int64
}

type kv struct{ k, v string }

// Builder collects rows for one export. It is not safe for concurrent use.
type Builder struct {
	schema   Schema
	procs    []kv // pid as decimal string, name
	procPIDs []int64
	gpus     []struct {
		id   int32
		name string
	}
	env       []kv
	host      string
	graphMode string
	version   string
	kernels   []K
	gens      []struct {
		n   int
		gen func(i int) K
	}
	memcpys, memsets []M
	nvtx             []N
	launches         []L
	graphNodes       []graphEvent
	ensure           map[string]bool
	capture          []kv
	high             int64
	highSet          bool
}

// New returns an empty builder for schema s.
func New(s Schema) *Builder {
	b := &Builder{schema: s, ensure: map[string]bool{}}
	switch s {
	case Schema2022:
		b.version = "2022.4.2.1"
	case Schema2024:
		b.version = "2024.6.2.25"
	}
	return b
}

// Process adds a PROCESSES row (Schema2022 and later).
func (b *Builder) Process(pid int64, name string) {
	b.procPIDs = append(b.procPIDs, pid)
	b.procs = append(b.procs, kv{fmt.Sprint(pid), name})
}

// GPU adds a TARGET_INFO_GPU row.
func (b *Builder) GPU(id int32, name string) {
	b.gpus = append(b.gpus, struct {
		id   int32
		name string
	}{id, name})
}

// Env records a captured environment variable: META_DATA_CAPTURE
// PROCESS_0:ENVIRONMENT_VARIABLE rows (Schema2024) and the
// TARGET_INFO_SYSTEM_ENV DeviceEnvironment row (Schema2022 and later).
// Schema2021 files have neither.
func (b *Builder) Env(key, value string) { b.env = append(b.env, kv{key, value}) }

// Host sets the Hostname row of TARGET_INFO_SYSTEM_ENV (Schema2022 and later).
func (b *Builder) Host(name string) { b.host = name }

// GraphTraceMode sets PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE ("Graph" or
// "Node"; Schema2024).
func (b *Builder) GraphTraceMode(mode string) { b.graphMode = mode }

// Kernel adds one kernel (and its launch row unless k.NoLaunch).
func (b *Builder) Kernel(k K) { b.kernels = append(b.kernels, k) }

// Kernels adds n kernels made by gen at write time, after those added
// with Kernel.
func (b *Builder) Kernels(n int, gen func(i int) K) {
	b.gens = append(b.gens, struct {
		n   int
		gen func(i int) K
	}{n, gen})
}

// Memcpy adds one memcpy (and its cudaMemcpyAsync row unless m.NoLaunch).
func (b *Builder) Memcpy(m M) { b.memcpys = append(b.memcpys, m) }

// Memset adds one memset (and its cudaMemsetAsync row unless m.NoLaunch).
func (b *Builder) Memset(m M) { b.memsets = append(b.memsets, m) }

// NVTX adds a push/pop range (eventType 59) with a plain text label.
func (b *Builder) NVTX(pid, tid, start, end int64, text string) {
	b.nvtx = append(b.nvtx, N{PID: pid, TID: tid, Start: start, End: end, Text: text})
}

// NVTXEvent adds any NVTX event.
func (b *Builder) NVTXEvent(n N) { b.nvtx = append(b.nvtx, n) }

// Launch adds a CUDA API row that launches nothing of its own.
func (b *Builder) Launch(l L) { b.launches = append(b.launches, l) }

// GraphNodeEvent adds a CUDA_GRAPH_NODE_EVENTS row.
func (b *Builder) GraphNodeEvent(pid, tid, node, original, start, end int64) {
	b.graphNodes = append(b.graphNodes, graphEvent{pid, tid, node, original, start, end})
}

// EnsureTable creates table name even when it gets no rows (one of the
// GPU-activity, RUNTIME, NVTX_EVENTS or CUDA_GRAPH_NODE_EVENTS tables).
func (b *Builder) EnsureTable(name string) { b.ensure[name] = true }

// Write writes the export into t.TempDir() and returns its path; it fails
// the test on error.
func (b *Builder) Write(t testing.TB) string {
	t.Helper()
	path := t.TempDir() + "/report.sqlite"
	if err := b.WriteFile(path); err != nil {
		t.Fatalf("nsystest: %v", err)
	}
	return path
}

// LaunchWindow is where the builder places the launch call of work that
// starts at start, unless told otherwise: [max(start-2000, start/2),
// halfway to start).
func LaunchWindow(start int64) (ls, le int64) {
	ls = max(start-2000, start/2)
	return ls, ls + (start-ls)/2
}

// DefaultHighBits are the hardware/VM bits above the process id that
// the builder writes into globalPid/globalTid unless told otherwise.
const DefaultHighBits = 1 << 48

// GlobalPID is the serialized process id written for pid with the
// default high bits.
func GlobalPID(pid int64) int64 { return DefaultHighBits | (pid&0xFFFFFF)<<24 }

// HighBits sets the hardware/VM bits (bits 48..63) of every globalPid and
// globalTid; 0 keeps sums over globalPid small (the speed benchmark sums
// it over a million rows).
func (b *Builder) HighBits(bits int64) { b.high = bits &^ (1<<48 - 1); b.highSet = true }

func (w *writer) gpid(pid int64) int64 {
	if w.b.highSet {
		return w.b.high | (pid&0xFFFFFF)<<24
	}
	return GlobalPID(pid)
}

func (w *writer) gtid(pid, tid int64) int64 { return w.gpid(pid) | tid&0xFFFFFF }

// WriteFile writes the export to path, which must not exist.
func (b *Builder) WriteFile(path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s already exists", path)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=rwc")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	w := &writer{b: b, db: db, strs: map[string]int64{}}
	if err := w.run(); err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return db.Close()
}

type writer struct {
	b    *Builder
	db   *sql.DB
	tx   *sql.Tx
	strs map[string]int64
	// per-process correlation counters
	corr map[int64]uint64
	// graph launches already written, per process
	graphLaunch map[[2]int64]bool
	gridID      int64
	loose       bool
	list        []string // StringIds values by id-1
	runtimeMade bool
}

func (w *writer) str(s string) int64 {
	if id, ok := w.strs[s]; ok {
		return id
	}
	id := int64(len(w.strs) + 1)
	w.strs[s] = id
	w.list = append(w.list, s)
	return id
}

func (w *writer) exec(q string, args ...any) error {
	if _, err := w.tx.Exec(q, args...); err != nil {
		return fmt.Errorf("%.60s: %w", q, err)
	}
	return nil
}

func (w *writer) run() error {
	b := w.b
	for _, p := range []string{"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", "PRAGMA page_size=4096"} {
		if _, err := w.db.Exec(p); err != nil {
			return err
		}
	}
	for _, k := range b.kernels {
		if k.NullStart || k.NullEnd || k.NullName {
			w.loose = true
		}
	}
	tx, err := w.db.Begin()
	if err != nil {
		return err
	}
	w.tx = tx
	defer tx.Rollback()
	w.corr = map[int64]uint64{}
	w.graphLaunch = map[[2]int64]bool{}

	steps := []func() error{w.writeKernels, w.writeCopies, w.writeLaunches, w.writeNVTX, w.writeGraphNodes, w.writeInfo, w.writeStrings}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// ---- table layouts ----

func (w *writer) kernelCols() []string {
	c := []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "deviceId INTEGER NOT NULL", "contextId INTEGER NOT NULL"}
	if w.b.schema >= Schema2024 {
		c = append(c, "greenContextId INTEGER")
	}
	c = append(c, "streamId INTEGER NOT NULL", "correlationId INTEGER", "globalPid INTEGER",
		"demangledName INTEGER NOT NULL", "shortName INTEGER NOT NULL")
	if w.b.schema >= Schema2022 {
		c = append(c, "mangledName INTEGER")
	}
	c = append(c, "launchType INTEGER", "cacheConfig INTEGER", "registersPerThread INTEGER NOT NULL",
		"gridX INTEGER NOT NULL", "gridY INTEGER NOT NULL", "gridZ INTEGER NOT NULL",
		"blockX INTEGER NOT NULL", "blockY INTEGER NOT NULL", "blockZ INTEGER NOT NULL",
		"staticSharedMemory INTEGER NOT NULL", "dynamicSharedMemory INTEGER NOT NULL",
		"localMemoryPerThread INTEGER NOT NULL", "localMemoryTotal INTEGER NOT NULL",
		"gridId INTEGER NOT NULL", "sharedMemoryExecuted INTEGER", "graphNodeId INTEGER",
		"sharedMemoryLimitConfig INTEGER")
	return c
}

func (w *writer) memcpyCols() []string {
	c := []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "deviceId INTEGER NOT NULL", "contextId INTEGER NOT NULL"}
	if w.b.schema >= Schema2024 {
		c = append(c, "greenContextId INTEGER")
	}
	c = append(c, "streamId INTEGER NOT NULL", "correlationId INTEGER", "globalPid INTEGER",
		"bytes INTEGER NOT NULL", "copyKind INTEGER NOT NULL", "deprecatedSrcId INTEGER",
		"srcKind INTEGER", "dstKind INTEGER", "srcDeviceId INTEGER", "srcContextId INTEGER",
		"dstDeviceId INTEGER", "dstContextId INTEGER", "migrationCause INTEGER", "graphNodeId INTEGER")
	if w.b.schema >= Schema2022 {
		c = append(c, "virtualAddress INTEGER")
	}
	return c
}

func (w *writer) memsetCols() []string {
	c := []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "deviceId INTEGER NOT NULL", "contextId INTEGER NOT NULL"}
	if w.b.schema >= Schema2024 {
		c = append(c, "greenContextId INTEGER")
	}
	return append(c, "streamId INTEGER NOT NULL", "correlationId INTEGER", "globalPid INTEGER",
		"value INTEGER NOT NULL", "bytes INTEGER NOT NULL", "graphNodeId INTEGER", "memKind INTEGER")
}

var runtimeCols = []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "eventClass INTEGER NOT NULL",
	"globalTid INTEGER", "correlationId INTEGER", "nameId INTEGER NOT NULL", "returnValue INTEGER NOT NULL",
	"callchainId INTEGER"}

func (w *writer) nvtxCols() []string {
	c := []string{"start INTEGER NOT NULL", "end INTEGER", "eventType INTEGER NOT NULL", "rangeId INTEGER",
		"category INTEGER", "color INTEGER", "text TEXT", "globalTid INTEGER", "endGlobalTid INTEGER",
		"textId INTEGER", "domainId INTEGER", "uint64Value INTEGER", "int64Value INTEGER", "doubleValue REAL",
		"uint32Value INTEGER", "int32Value INTEGER", "floatValue REAL", "jsonTextId INTEGER", "jsonText TEXT"}
	if w.b.schema >= Schema2024 {
		c = append(c, "binaryData TEXT")
	}
	return c
}

var graphNodeCols = []string{"start INTEGER NOT NULL", "end INTEGER NOT NULL", "eventClass INTEGER NOT NULL",
	"globalTid INTEGER", "nameId INTEGER NOT NULL", "graphNodeId INTEGER NOT NULL", "originalGraphNodeId INTEGER"}

var gpuCols = []string{"vmId INTEGER NOT NULL", "id INTEGER NOT NULL", "name TEXT", "busLocation TEXT",
	"isDiscrete INTEGER", "l2CacheSize INTEGER", "totalMemory INTEGER", "memoryBandwidth INTEGER",
	"clockRate INTEGER", "smCount INTEGER", "pwGpuId INTEGER", "uuid TEXT", "luid INTEGER", "chipName TEXT",
	"cuDevice INTEGER", "ctxswDevPath TEXT", "ctrlDevPath TEXT", "revision INTEGER", "nodeMask INTEGER",
	"constantMemory INTEGER", "maxIPC INTEGER", "maxRegistersPerBlock INTEGER", "maxShmemPerBlock INTEGER",
	"maxShmemPerBlockOptin INTEGER", "maxShmemPerSm INTEGER", "maxRegistersPerSm INTEGER",
	"threadsPerWarp INTEGER", "asyncEngines INTEGER", "maxWarpsPerSm INTEGER", "maxBlocksPerSm INTEGER",
	"maxThreadsPerBlock INTEGER", "maxBlockDimX INTEGER", "maxBlockDimY INTEGER", "maxBlockDimZ INTEGER",
	"maxGridDimX INTEGER", "maxGridDimY INTEGER", "maxGridDimZ INTEGER", "computeMajor INTEGER",
	"computeMinor INTEGER", "smMajor INTEGER", "smMinor INTEGER"}

func (w *writer) create(table string, cols []string, loose bool) error {
	if loose {
		cc := make([]string, len(cols))
		for i, c := range cols {
			cc[i] = strings.Replace(c, " NOT NULL", "", 1)
		}
		cols = cc
	}
	return w.exec("CREATE TABLE " + table + " (" + strings.Join(cols, ", ") + ")")
}

func colNames(cols []string) []string {
	n := make([]string, len(cols))
	for i, c := range cols {
		n[i] = strings.Fields(c)[0]
	}
	return n
}

// batchInserter inserts rows of a fixed width in multi-row statements.
type batchInserter struct {
	w     *writer
	table string
	cols  []string
	per   int
	buf   []any
	full  *sql.Stmt
}

func (w *writer) inserter(table string, cols []string) (*batchInserter, error) {
	names := colNames(cols)
	per := 30000 / len(names)
	if per > 256 {
		per = 256
	}
	bi := &batchInserter{w: w, table: table, cols: names, per: per}
	st, err := w.tx.Prepare(bi.query(per))
	if err != nil {
		return nil, err
	}
	bi.full = st
	bi.buf = make([]any, 0, per*len(names))
	return bi, nil
}

func (bi *batchInserter) query(rows int) string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + bi.table + " (" + strings.Join(bi.cols, ",") + ") VALUES ")
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(bi.cols)), ",") + ")"
	for i := range rows {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(one)
	}
	return sb.String()
}

func (bi *batchInserter) add(vals ...any) error {
	if len(vals) != len(bi.cols) {
		return fmt.Errorf("%s: %d values for %d columns", bi.table, len(vals), len(bi.cols))
	}
	bi.buf = append(bi.buf, vals...)
	if len(bi.buf) == cap(bi.buf) {
		if _, err := bi.full.Exec(bi.buf...); err != nil {
			return fmt.Errorf("insert %s: %w", bi.table, err)
		}
		bi.buf = bi.buf[:0]
	}
	return nil
}

func (bi *batchInserter) flush() error {
	defer bi.full.Close()
	if len(bi.buf) == 0 {
		return nil
	}
	if _, err := bi.w.tx.Exec(bi.query(len(bi.buf)/len(bi.cols)), bi.buf...); err != nil {
		return fmt.Errorf("insert %s: %w", bi.table, err)
	}
	bi.buf = bi.buf[:0]
	return nil
}

// ---- rows ----

func (w *writer) nextCorr(pid int64) uint64 {
	w.corr[pid]++
	return w.corr[pid]
}

// launchRow is a pending CUPTI_ACTIVITY_KIND_RUNTIME row.
type launchRow struct {
	start, end, gtid int64
	corr             uint64
	name             int64
	class            int
}

func shortName(name string) string {
	s := name
	// drop the argument list and template arguments
	depth := 0
	var out strings.Builder
	for _, r := range s {
		switch r {
		case '<', '(':
			depth++
		case '>', ')':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 {
				out.WriteRune(r)
			}
		}
	}
	s = strings.TrimSpace(out.String())
	if i := strings.LastIndex(s, " "); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	if s == "" {
		return name
	}
	return s
}

func null(ok bool, v any) any {
	if ok {
		return nil
	}
	return v
}

func (w *writer) writeKernels() error {
	b := w.b
	total := len(b.kernels)
	for _, g := range b.gens {
		total += g.n
	}
	if total == 0 && !b.ensure["CUPTI_ACTIVITY_KIND_KERNEL"] {
		return nil
	}
	cols := w.kernelCols()
	if err := w.create("CUPTI_ACTIVITY_KIND_KERNEL", cols, w.loose); err != nil {
		return err
	}
	ki, err := w.inserter("CUPTI_ACTIVITY_KIND_KERNEL", cols)
	if err != nil {
		return err
	}
	ri, err := w.runtimeInserter()
	if err != nil {
		return err
	}
	launchName := w.str("cudaLaunchKernel_v7000")
	graphName := w.str("cudaGraphLaunch_v10000")
	driverName := w.str("cuLaunchKernel")
	shorts := map[string]int64{}
	mangled := map[string]int64{}
	vals := make([]any, 0, len(cols))
	one := func(k K) error {
		if k.TID == 0 {
			k.TID = k.PID
		}
		if k.Grid == ([3]int32{}) {
			k.Grid = [3]int32{1, 1, 1}
		}
		if k.Block == ([3]int32{}) {
			k.Block = [3]int32{1, 1, 1}
		}
		if k.Corr == 0 {
			k.Corr = w.nextCorr(k.PID)
		}
		var name, short, mangledID int64
		if k.NameID != 0 {
			name, short = k.NameID, k.NameID
		} else {
			name = w.str(k.Name)
			s := k.Short
			if s == "" {
				id, ok := shorts[k.Name]
				if !ok {
					id = w.str(shortName(k.Name))
					shorts[k.Name] = id
				}
				short = id
			} else {
				short = w.str(s)
			}
			id, ok := mangled[k.Name]
			if !ok {
				sn := w.strsValue(short)
				id = w.str(fmt.Sprintf("_Z%d%sv", len(sn), sn))
				mangled[k.Name] = id
			}
			mangledID = id
		}
		w.gridID++
		gpid := w.gpid(k.PID)
		vals = vals[:0]
		vals = append(vals, null(k.NullStart, k.Start), null(k.NullEnd, k.End), k.Device, 1)
		if b.schema >= Schema2024 {
			vals = append(vals, nil)
		}
		vals = append(vals, k.Stream, int64(k.Corr), gpid, null(k.NullName, name), null(k.NullName, short))
		if b.schema >= Schema2022 {
			vals = append(vals, null(k.NullName, mangledID))
		}
		var gn any
		if k.GraphNode != 0 {
			gn = k.GraphNode
		}
		vals = append(vals, 1, 0, 32,
			k.Grid[0], k.Grid[1], k.Grid[2], k.Block[0], k.Block[1], k.Block[2],
			0, 0, 0, 0, w.gridID, 0, gn, 0)
		if err := ki.add(vals...); err != nil {
			return err
		}
		if k.NoLaunch {
			return nil
		}
		ln, class := launchName, 0
		if k.GraphNode != 0 {
			key := [2]int64{k.PID, int64(k.Corr)}
			if w.graphLaunch[key] {
				return nil
			}
			w.graphLaunch[key] = true
			ln = graphName
		} else if k.Driver {
			ln, class = driverName, 1
		}
		ls, le := k.LaunchStart, k.LaunchEnd
		if ls == 0 && le == 0 {
			ls, le = LaunchWindow(k.Start)
		}
		return ri.add(ls, le, class, w.gtid(k.PID, k.TID), int64(k.Corr), ln, 0, nil)
	}
	for _, k := range b.kernels {
		if err := one(k); err != nil {
			return err
		}
	}
	for _, g := range b.gens {
		for i := range g.n {
			if err := one(g.gen(i)); err != nil {
				return err
			}
		}
	}
	if err := ki.flush(); err != nil {
		return err
	}
	return ri.flush()
}

// strsValue returns the string of id.
func (w *writer) strsValue(id int64) string { return w.list[id-1] }

func (w *writer) runtimeInserter() (*batchInserter, error) {
	if !w.runtimeMade {
		w.runtimeMade = true
		if err := w.create("CUPTI_ACTIVITY_KIND_RUNTIME", runtimeCols, false); err != nil {
			return nil, err
		}
	}
	return w.inserter("CUPTI_ACTIVITY_KIND_RUNTIME", runtimeCols)
}

func (w *writer) writeCopies() error {
	b := w.b
	for _, spec := range []struct {
		table string
		rows  []M
		cols  []string
		api   string
		set   bool
	}{
		{"CUPTI_ACTIVITY_KIND_MEMCPY", b.memcpys, w.memcpyCols(), "cudaMemcpyAsync_v3020", false},
		{"CUPTI_ACTIVITY_KIND_MEMSET", b.memsets, w.memsetCols(), "cudaMemsetAsync_v3020", true},
	} {
		if len(spec.rows) == 0 && !b.ensure[spec.table] {
			continue
		}
		if err := w.create(spec.table, spec.cols, false); err != nil {
			return err
		}
		ins, err := w.inserter(spec.table, spec.cols)
		if err != nil {
			return err
		}
		ri, err := w.runtimeInserter()
		if err != nil {
			return err
		}
		api := w.str(spec.api)
		for _, m := range spec.rows {
			if m.TID == 0 {
				m.TID = m.PID
			}
			if m.Corr == 0 {
				m.Corr = w.nextCorr(m.PID)
			}
			if m.Bytes == 0 {
				m.Bytes = 4096
			}
			var gn any
			if m.GraphNode != 0 {
				gn = m.GraphNode
			}
			v := []any{m.Start, m.End, m.Device, 1}
			if b.schema >= Schema2024 {
				v = append(v, nil)
			}
			v = append(v, m.Stream, int64(m.Corr), w.gpid(m.PID))
			if spec.set {
				v = append(v, 0, m.Bytes, gn, 2)
			} else {
				v = append(v, m.Bytes, m.CopyKind, nil, 0, 1, m.Device, 1, m.Device, 1, nil, gn)
				if b.schema >= Schema2022 {
					v = append(v, nil)
				}
			}
			if err := ins.add(v...); err != nil {
				return err
			}
			if !m.NoLaunch {
				ls, le := LaunchWindow(m.Start)
				if err := ri.add(ls, le, 0, w.gtid(m.PID, m.TID), int64(m.Corr), api, 0, nil); err != nil {
					return err
				}
			}
		}
		if err := ins.flush(); err != nil {
			return err
		}
		if err := ri.flush(); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) writeLaunches() error {
	if len(w.b.launches) == 0 {
		if w.b.ensure["CUPTI_ACTIVITY_KIND_RUNTIME"] && !w.runtimeMade {
			w.runtimeMade = true
			return w.create("CUPTI_ACTIVITY_KIND_RUNTIME", runtimeCols, false)
		}
		return nil
	}
	ri, err := w.runtimeInserter()
	if err != nil {
		return err
	}
	for _, l := range w.b.launches {
		if l.TID == 0 {
			l.TID = l.PID
		}
		class := 0
		if l.Driver {
			class = 1
		}
		if err := ri.add(l.Start, l.End, class, w.gtid(l.PID, l.TID), int64(l.Corr), w.str(l.Name), 0, nil); err != nil {
			return err
		}
	}
	return ri.flush()
}

func (w *writer) writeNVTX() error {
	b := w.b
	if len(b.nvtx) == 0 && !b.ensure["NVTX_EVENTS"] {
		return nil
	}
	cols := w.nvtxCols()
	if err := w.create("NVTX_EVENTS", cols, false); err != nil {
		return err
	}
	ins, err := w.inserter("NVTX_EVENTS", cols)
	if err != nil {
		return err
	}
	for _, n := range b.nvtx {
		if n.TID == 0 {
			n.TID = n.PID
		}
		typ := n.Type
		if typ == 0 {
			typ = 59
		}
		var text, textID, end any = n.Text, nil, n.End
		if n.Registered {
			text, textID = nil, w.str(n.Text)
		}
		if n.NullEnd {
			end = nil
		}
		gtid := w.gtid(n.PID, n.TID)
		v := []any{n.Start, end, typ, nil, nil, nil, text, gtid, nil, textID, n.Domain,
			nil, nil, nil, nil, nil, nil, nil, nil}
		if b.schema >= Schema2024 {
			v = append(v, nil)
		}
		if err := ins.add(v...); err != nil {
			return err
		}
	}
	return ins.flush()
}

func (w *writer) writeGraphNodes() error {
	b := w.b
	if len(b.graphNodes) == 0 && !b.ensure["CUDA_GRAPH_NODE_EVENTS"] {
		return nil
	}
	if err := w.create("CUDA_GRAPH_NODE_EVENTS", graphNodeCols, false); err != nil {
		return err
	}
	name := w.str("cudaGraphAddKernelNode_v10000")
	for _, g := range b.graphNodes {
		var orig any
		if g.original != 0 {
			orig = g.original
		}
		if err := w.exec("INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES (?,?,?,?,?,?,?)",
			g.start, g.end, 0, w.gtid(g.pid, g.tid), name, g.node, orig); err != nil {
			return err
		}
	}
	return nil
}

var memcpyOper = []struct{ name, label string }{
	{"CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"}, {"CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
	{"CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"}, {"CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
	{"CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"}, {"CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
	{"CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"}, {"CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
	{"CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"}, {"CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
	{"CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"}, {"CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"},
	{"CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"}, {"CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"},
}

var eventTypes = []struct {
	id   int
	name string
}{{33, "NvtxCategory"}, {34, "NvtxMark"}, {35, "NvtxPushRange"}, {36, "NvtxPopRange"},
	{37, "NvtxStartRange"}, {38, "NvtxEndRange"}, {59, "NvtxPushPopRange"}, {60, "NvtxStartEndRange"},
	{70, "NvtxtPushPopRange"}, {71, "NvtxtStartEndRange"}, {75, "NvtxDomainCreate"}}

const enumCols = "id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT"

func (w *writer) writeInfo() error {
	b := w.b
	// TARGET_INFO_GPU: every schema.
	if err := w.create("TARGET_INFO_GPU", gpuCols, false); err != nil {
		return err
	}
	for _, g := range b.gpus {
		v := make([]any, len(gpuCols))
		v[0], v[1], v[2] = 0, g.id, g.name
		v[3] = fmt.Sprintf("0000:%02x:00.0", 0x1b+g.id)
		v[4], v[9], v[14] = 1, 132, g.id
		q := "INSERT INTO TARGET_INFO_GPU VALUES (" + strings.TrimSuffix(strings.Repeat("?,", len(v)), ",") + ")"
		if err := w.exec(q, v...); err != nil {
			return err
		}
	}
	if b.schema == Schema2021 {
		return w.exec("CREATE TABLE UnwindMethodType (number INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL)")
	}

	// ENUM tables.
	launchEnum := "ENUM_CUDA_KRENEL_LAUNCH_TYPE"
	if b.schema >= Schema2024 {
		launchEnum = "ENUM_CUDA_KERNEL_LAUNCH_TYPE"
	}
	for _, t := range []string{"ENUM_NSYS_EVENT_TYPE", "ENUM_NSYS_EVENT_CLASS", "ENUM_CUDA_MEMCPY_OPER", launchEnum} {
		if err := w.exec("CREATE TABLE " + t + " (" + enumCols + ")"); err != nil {
			return err
		}
	}
	for _, e := range eventTypes {
		if err := w.exec("INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (?,?,?)", e.id, e.name, e.name); err != nil {
			return err
		}
	}
	for i, e := range []string{"TRACE_PROCESS_EVENT_CUDA_RUNTIME", "TRACE_PROCESS_EVENT_CUDA_DRIVER"} {
		if err := w.exec("INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (?,?,?)", i, e, []string{"CUDA runtime", "CUDA driver"}[i]); err != nil {
			return err
		}
	}
	for i, e := range memcpyOper {
		if err := w.exec("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?,?,?)", i, e.name, e.label); err != nil {
			return err
		}
	}
	for i, e := range []string{"UNKNOWN", "REGULAR", "COOPERATIVE_SINGLE_DEVICE", "COOPERATIVE_MULTI_DEVICE"} {
		if err := w.exec("INSERT INTO "+launchEnum+" VALUES (?,?,?)", i, "CUDA_KERNEL_LAUNCH_TYPE_"+e, e); err != nil {
			return err
		}
	}

	// PROCESSES.
	if err := w.create("PROCESSES", []string{"globalPid INTEGER", "pid INTEGER", "name TEXT"}, false); err != nil {
		return err
	}
	for i, p := range b.procs {
		if err := w.exec("INSERT INTO PROCESSES VALUES (?,?,?)", w.gpid(b.procPIDs[i]), b.procPIDs[i], p.v); err != nil {
			return err
		}
	}

	// TARGET_INFO_SYSTEM_ENV.
	if err := w.create("TARGET_INFO_SYSTEM_ENV", []string{"globalVid INTEGER", "devStateName TEXT NOT NULL",
		"name TEXT NOT NULL", "nameEnum INTEGER NOT NULL", "value TEXT NOT NULL"}, false); err != nil {
		return err
	}
	sysenv := []struct {
		name string
		enum int
		val  string
	}{{"CpuCores", 1, "16"}, {"NvDriverVersion", 205, "550.54.15"}, {"OsDescription", 605, "Ubuntu 22.04.4 LTS"}, {"CudaDriverVersion", 611, "12040"}}
	if b.host != "" {
		sysenv = append(sysenv, struct {
			name string
			enum int
			val  string
		}{"Hostname", 619, b.host})
	}
	if len(b.env) > 0 {
		parts := []string{"SHELL=/bin/bash"}
		for _, e := range b.env {
			parts = append(parts, e.k+"="+e.v)
		}
		sysenv = append(sysenv, struct {
			name string
			enum int
			val  string
		}{"DeviceEnvironment", 610, strings.Join(parts, ";")})
	}
	for _, e := range sysenv {
		if err := w.exec("INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (?,?,?,?,?)", 1<<56, "", e.name, e.enum, e.val); err != nil {
			return err
		}
	}

	// Export metadata.
	meta := "EXPORT_META_DATA"
	if b.schema >= Schema2024 {
		meta = "META_DATA_EXPORT"
	}
	if err := w.create(meta, []string{"name TEXT NOT NULL", "value TEXT"}, false); err != nil {
		return err
	}
	rows := []kv{{"EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"}}
	if b.version != "" {
		rows = append(rows, kv{"EXPORT_PRODUCT_VERSION", b.version})
	}
	schemaVersion := "3.0.0"
	if b.schema >= Schema2024 {
		schemaVersion = "3.16.1"
	}
	rows = append(rows, kv{"EXPORT_SCHEMA_VERSION", schemaVersion}, kv{"EXPORT_HOST", "export-host"})
	for _, r := range rows {
		if err := w.exec("INSERT INTO "+meta+" VALUES (?,?)", r.k, r.v); err != nil {
			return err
		}
	}
	if b.schema < Schema2024 {
		return nil
	}

	// META_DATA_CAPTURE.
	if err := w.create("META_DATA_CAPTURE", []string{"name TEXT NOT NULL", "value TEXT"}, false); err != nil {
		return err
	}
	capt := []kv{{"CAPTURE_EVENT_TYPE", "Cuda"}, {"PROCESS_0:COMMAND", "python3"}}
	for _, e := range b.env {
		capt = append(capt, kv{"PROCESS_0:ENVIRONMENT_VARIABLE", e.k + `="` + e.v + `"`})
	}
	if b.graphMode != "" {
		capt = append(capt, kv{"PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE", b.graphMode})
	}
	capt = append(capt, b.capture...)
	capt = append(capt, kv{"RUN_DURATION_MS", "1000"})
	for _, r := range capt {
		if err := w.exec("INSERT INTO META_DATA_CAPTURE VALUES (?,?)", r.k, r.v); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) writeStrings() error {
	if err := w.exec("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)"); err != nil {
		return err
	}
	ins, err := w.inserter("StringIds", []string{"id", "value"})
	if err != nil {
		return err
	}
	for i, s := range w.list {
		if err := ins.add(int64(i+1), s); err != nil {
			return err
		}
	}
	return ins.flush()
}
