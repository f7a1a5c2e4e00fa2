package nsys

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

// dump renders everything a read gives, names and shapes resolved, in
// the order the reader gives it: two reads are identical when their
// dumps are.
func dump(c *event.Capture) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q %q %q %d %q %q %q\n", c.Path, c.Format, c.ToolVersion, c.Host, c.GraphTraceMode, c.SessionStart,
		c.CapturedRank, c.CapturedRankFrom, c.Warnings)
	fmt.Fprintf(&b, "env %v\n", c.Env)
	for _, r := range c.Ranks {
		fmt.Fprintf(&b, "rank %s %s %d/%d %q %q %q %q %q %q span %d..%d\n", r.Source, r.Format, r.PID, r.Device, r.Label, r.LabelFrom,
			r.GPU, r.Host, r.ToolVersion, r.Process, r.SpanStart, r.SpanEnd)
		for _, w := range r.Work {
			fmt.Fprintf(&b, "w %d %d %d %d %d %s %d %q %v\n", w.Start, w.End, w.Stream, w.Correlation, w.GraphNode, w.Kind,
				w.Name, c.Names.Name(w.Name), c.Shapes.Shape(w.Shape))
		}
		for _, l := range r.Launches {
			fmt.Fprintf(&b, "l %d %d %d %d %d %q\n", l.Start, l.End, l.Correlation, l.TID, l.Name, c.Names.Name(l.Name))
		}
		for _, g := range r.Ranges {
			fmt.Fprintf(&b, "r %d %d %d %v %d %q\n", g.Start, g.End, g.TID, g.Kind, g.Text, c.Names.Name(g.Text))
		}
		for _, g := range r.GraphNodes {
			fmt.Fprintf(&b, "g %+v\n", g)
		}
	}
	return b.String()
}

// readConfig reads path with cfg, the page scanner on or off.
func readConfig(t *testing.T, path string, cfg Config, pages bool) (string, error) {
	t.Helper()
	defer func(old bool) { usePages = old }(usePages)
	usePages = pages
	c, err := ReadWith(context.Background(), openRO(t, path), path, event.All, cfg)
	if err != nil {
		return "", err
	}
	return dump(c), nil
}

// readPaths are the ways TestWorkersIdentical reads an export: one
// worker through database/sql, and one or several workers over small
// rowid ranges through the page scanner and through SQLite's own
// handles (the C scanner where built in).
var readPaths = []struct {
	name  string
	pages bool
	file  bool
	cfg   Config
}{
	{"database/sql, 1 worker", false, false, Config{Workers: 1}},
	{"pages, 1 worker", true, true, Config{Workers: 1}},
	{"pages, 4 workers", true, true, Config{Workers: 4, MinChunk: 97}},
	{"pages, 3 workers", true, true, Config{Workers: 3, MinChunk: 1}},
	{"sqlite handles, 4 workers", false, true, Config{Workers: 4, MinChunk: 97}},
	{"database/sql, 3 workers", false, false, Config{Workers: 3, MinChunk: 50}},
}

// checkPathsIdentical reads path every way and demands identical reads
// (or the same failure).
func checkPathsIdentical(t *testing.T, path string) {
	t.Helper()
	reads, falls := pageReads.Load(), pageFallbacks.Load()
	defer func() {
		if n := pageFallbacks.Load() - falls; n != 0 {
			t.Errorf("%d rowid ranges fell back from the pages to SQLite", n)
		}
		t.Logf("%d rowid ranges read from the pages", pageReads.Load()-reads)
	}()
	var ref string
	var refErr error
	for i, p := range readPaths {
		cfg := p.cfg
		if p.file {
			cfg.File = path
		}
		got, err := readConfig(t, path, cfg, p.pages)
		if i == 0 {
			ref, refErr = got, err
			continue
		}
		if (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error() {
			t.Fatalf("%s: error %v, %s: %v", p.name, err, readPaths[0].name, refErr)
		}
		if got != ref {
			t.Fatalf("%s differs from %s:\n%s", p.name, readPaths[0].name, firstDiff(got, ref))
		}
	}
}

// firstDiff returns the first differing lines of a and b.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(la), len(lb))
}

// workersExport writes an export with every table the reader scans in
// rowid ranges, large enough to be cut into many: three processes on two
// devices, kernels with launches, memcpys, memsets, NVTX ranges with
// inline and registered texts, unclosed and out-of-order ones, and a few
// rows the reader drops.
func workersExport(t *testing.T) string {
	b := nsystest.New(nsystest.Schema2024)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, pid := range []int64{10, 11, 12} {
		b.Process(pid, fmt.Sprintf("python%d", pid))
	}
	b.GPU(0, "NVIDIA H100 80GB HBM3")
	b.GPU(1, "NVIDIA H200")
	b.Env("RANK", "3")
	for i := range 3000 {
		pid := int64(10 + i%3)
		start := int64(i)*100 + 1
		b.Kernel(nsystest.K{PID: pid, TID: pid + 1, Device: int32(i % 2), Stream: int32(i % 5), Start: start, End: start + int64(rng.IntN(500)),
			Name: fmt.Sprintf("kernel_%d<%d>", i%37, i%3), Grid: [3]int32{int32(1 + i%7), 1, 1}, Block: [3]int32{128, 1, 1}, NoLaunch: i%11 == 0})
		switch {
		case i%40 == 0:
			b.Memcpy(nsystest.M{PID: pid, Device: int32(i % 2), Stream: 3, Start: start + 5, End: start + 50, CopyKind: 1 + i%8})
		case i%45 == 0:
			b.Memset(nsystest.M{PID: pid, Device: int32(i % 2), Stream: 4, Start: start + 7, End: start + 20})
		case i%9 == 0:
			b.NVTXEvent(nsystest.N{PID: pid, TID: pid + 1, Start: start - 50, End: start + 400, Text: fmt.Sprintf("step %d", i%13),
				Registered: i%2 == 0, NullEnd: i%300 == 0, Type: []int{59, 60, 34}[i%3]})
		}
	}
	b.Kernel(nsystest.K{PID: 10, Stream: 1, Start: 50, End: 40, Name: "reversed"}) // dropped
	path := b.Write(t)
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// a kernel whose name is NULL in every column, one with a real end
	db.Exec("UPDATE " + tKernel + " SET demangledName = NULL, shortName = NULL, mangledName = NULL WHERE rowid = 17")
	db.Exec("UPDATE " + tKernel + " SET end = end + 0.5 WHERE rowid = 23")
	db.Exec("UPDATE " + tNVTX + " SET start = 'late' WHERE rowid = 5")
	return path
}

// TestWorkersIdentical: one export read by one worker or several, from
// the pages, through SQLite's handles or through database/sql, gives
// the identical capture.
func TestWorkersIdentical(t *testing.T) {
	reads := pageReads.Load()
	checkPathsIdentical(t, workersExport(t))
	// at least one range of each of the five tables (kernels, memcpys,
	// memsets, API calls, NVTX ranges) for each of the three page paths
	if n := pageReads.Load() - reads; n < 3*5 {
		t.Errorf("only %d rowid ranges read from the pages", n)
	}
}

// TestWorkersIdenticalReal is TestWorkersIdentical on every real export
// in ../shared/testdata/nsys; it skips when there is none.
func TestWorkersIdenticalReal(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "testdata", "nsys")
	files, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
	if len(files) == 0 {
		t.Skipf("no exports in %s", dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { checkPathsIdentical(t, f) })
	}
}

// TestPageFallback: a kernel record whose last column's size does not
// match the record, which SQLite (needing only earlier columns) reads
// past, fails the page scan; the reader then reads the table through
// SQLite and gives what SQLite alone gives.
func TestPageFallback(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	b.Process(10, "python3")
	for i := range 5 {
		b.Kernel(nsystest.K{PID: 10, Stream: 7, Start: int64(i+1) * 1000, End: int64(i+1)*1000 + 500, Name: "k"})
	}
	path := b.Write(t)
	db := openRO(t, path)
	var root int64
	var ps int
	if err := db.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = ?", tKernel).Scan(&root); err != nil {
		t.Fatal(err)
	}
	db.QueryRow("PRAGMA page_size").Scan(&ps)
	db.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := raw[int(root-1)*ps : int(root)*ps]
	if page[0] != 0x0d {
		t.Fatalf("the kernel table's root is not a leaf (type %#x)", page[0])
	}
	cell := page[int(page[8])<<8|int(page[9]):]
	_, n1 := testVarint(cell)
	_, n2 := testVarint(cell[n1:])
	rec := cell[n1+n2:]
	h, _ := testVarint(rec)
	last := &rec[h-1] // the last column's serial type (one byte: an integer or NULL)
	if *last >= 0x80 || *last >= 12 {
		t.Fatalf("last serial type %#x", *last)
	}
	if *last == 0 || *last >= 8 {
		*last = 1 // one byte more than the record holds
	} else {
		*last = 0
	}
	bad := filepath.Join(t.TempDir(), "bad.sqlite")
	if err := os.WriteFile(bad, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	want, werr := readConfig(t, bad, Config{File: bad}, false)
	falls := pageFallbacks.Load()
	got, gerr := readConfig(t, bad, Config{File: bad}, true)
	if pageFallbacks.Load() == falls {
		t.Error("the damaged record did not fail the page scan")
	}
	if werr != nil || gerr != nil || got != want || !strings.Contains(got, "w 1000 1500") {
		t.Fatalf("fallback: %v, %v; reads identical: %v", gerr, werr, got == want)
	}
}

// testVarint decodes an SQLite varint.
func testVarint(b []byte) (int, int) {
	v := 0
	for i := 0; i < 8; i++ {
		v = v<<7 | int(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return v<<8 | int(b[8]), 9
}
