package input

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
	"github.com/servecmp/servecmp/nsys"
)

func export(t testing.TB) string {
	t.Helper()
	b := nsystest.New(nsystest.Schema2024)
	b.Process(7, "python3")
	b.GPU(0, "NVIDIA H100 80GB HBM3")
	b.Env("LOCAL_RANK", "2")
	for i := range 200 {
		b.Kernel(nsystest.K{PID: 7, Stream: int32(i % 3), Start: int64(1000 + i*100), End: int64(1150 + i*100), Name: "gemm_kernel"})
	}
	b.NVTX(7, 7, 900, 30_000, "step")
	return b.Write(t)
}

func listing(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestOpenLeavesNothing reads an export from a read-only file in a
// read-only directory and checks that neither the file nor the directory
// changed. (Under root the modes do not stop writes; the listing and hash
// comparisons still catch a journal, a WAL or any write.)
func TestOpenLeavesNothing(t *testing.T) {
	src := export(t)
	dir := filepath.Join(t.TempDir(), "ro dir?#%")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rank 0?.sqlite")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before, beforeList := sum(t, path), listing(t, dir)
	st0, _ := os.Stat(path)

	c, err := Open(context.Background(), path, event.All)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if len(c.Ranks) != 1 || len(c.Ranks[0].Work) != 200 || c.CapturedRank != "2" {
		t.Fatalf("capture: %d ranks", len(c.Ranks))
	}
	if after := sum(t, path); after != before {
		t.Error("file bytes changed")
	}
	if after := listing(t, dir); !slices.Equal(after, beforeList) {
		t.Errorf("directory listing changed: %q → %q", beforeList, after)
	}
	if st1, _ := os.Stat(path); !st1.ModTime().Equal(st0.ModTime()) {
		t.Error("file modification time changed")
	}
}

func TestDSN(t *testing.T) {
	dsn, err := DSN("/a b/c?d#e%f.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	want := "file:/a b/c%3Fd%23e%25f.sqlite?mode=ro&immutable=1&_query_only=1&_mutex=no&_cache_size=-1024"
	if dsn != want {
		t.Errorf("DSN = %q, want %q", dsn, want)
	}
}

// TestDSNRefusesWrites checks that the driver honours the read-only DSN:
// a write through it fails and leaves the file as it was.
func TestDSNRefusesWrites(t *testing.T) {
	path := export(t)
	before := sum(t, path)
	dsn, err := DSN(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE scratch (x INTEGER)"); err == nil {
		t.Error("CREATE TABLE succeeded on a read-only DSN")
	}
	if _, err := db.Exec("DELETE FROM StringIds"); err == nil {
		t.Error("DELETE succeeded on a read-only DSN")
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").Scan(&n); err != nil || n != 200 {
		t.Errorf("read through the DSN: %d, %v", n, err)
	}
	db.Close()
	if sum(t, path) != before {
		t.Error("file changed")
	}
}

func TestErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(export(t))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noKernels := nsystest.New(nsystest.Schema2022)
	noKernels.Memset(nsystest.M{PID: 1, Start: 1, End: 2})
	noKernelsPath := filepath.Join(dir, "nokernels.sqlite")
	if err := noKernels.WriteFile(noKernelsPath); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want string
	}{
		{filepath.Join(dir, "missing.sqlite"), "no such file"},
		{write("empty.sqlite", nil), "empty file"},
		{write("blank.json", []byte("   \n\n")), "empty file"},
		{write("text.sqlite", []byte("hello, this is not a trace\n")), "not an Nsight Systems SQLite export or a PyTorch profiler trace"},
		{write("head.sqlite", good[:10]), "truncated SQLite file"},
		{write("half.sqlite", good[:len(good)/2]), "SQLite"},
		{write("header-only.sqlite", good[:100]), ""},
		{dir, "is a directory"},
		{noKernelsPath, "no CUPTI_ACTIVITY_KIND_KERNEL table"},
	} {
		_, err := Open(context.Background(), tc.path, event.All)
		if err == nil {
			t.Errorf("%s: no error", tc.path)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "input: "+tc.path+": ") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line naming the file and saying %q", filepath.Base(tc.path), msg, tc.want)
		}
	}
	if _, err := Open(context.Background(), noKernelsPath, event.All); !errors.Is(err, nsys.ErrNoKernels) {
		t.Errorf("no-kernel error does not wrap nsys.ErrNoKernels: %v", err)
	}
}

// TestCorruptCopies reads truncated and byte-flipped copies of a good
// export: each must either read or fail with an error naming the file,
// never panic or hang.
func TestCorruptCopies(t *testing.T) {
	good, err := os.ReadFile(export(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range 40 {
		var b []byte
		if i%2 == 0 {
			b = good[:rng.IntN(len(good))]
		} else {
			b = bytes.Clone(good)
			for range 1 + rng.IntN(64) {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		}
		p := filepath.Join(dir, "copy.sqlite")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), p, event.All)
		if err != nil && !strings.HasPrefix(err.Error(), "input: "+p+": ") {
			t.Errorf("copy %d: error does not name the file: %v", i, err)
		}
	}
}

func FuzzOpen(f *testing.F) {
	good, err := os.ReadFile(export(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good[:4096])
	f.Add(good[:200])
	f.Add([]byte(`{"traceEvents": []}`))
	f.Add([]byte("\x1f\x8b\x08"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "fuzz.in")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), p, event.All)
		if err != nil && !strings.HasPrefix(err.Error(), "input: "+p+": ") {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"traceEvents": []}`))
	zw.Close()
	for name, tc := range map[string]struct {
		b    []byte
		want event.Format
	}{
		"a.json":    {[]byte("\n {\"traceEvents\": []}"), event.Kineto},
		"b.gz":      {gz.Bytes(), event.Kineto},
		"c.txt":     {[]byte("\xef\xbb\xbf[{}]"), event.Kineto},
		"d.json.gz": {[]byte("SQLite format 3\x00 and more"), event.NSys}, // content wins over the name
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, tc.b, 0o644)
		got, err := Detect(p)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", name, got, err, tc.want)
		}
	}
}

func TestKinetoBranch(t *testing.T) {
	p := filepath.Join(t.TempDir(), "trace.json")
	os.WriteFile(p, []byte(`{"traceEvents": [`), 0o644) // truncated JSON
	_, err := Open(context.Background(), p, event.All)
	if err == nil || !strings.HasPrefix(err.Error(), "input: "+p+": ") {
		t.Errorf("truncated kineto trace: %v", err)
	}
}

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(export(t))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "rank1.sqlite"), good, 0o644)
	os.WriteFile(filepath.Join(dir, "rank0.sqlite"), good, 0o644)
	os.WriteFile(filepath.Join(dir, "trace.json"), []byte(`{"schemaVersion": 1, "traceEvents": []}`), 0o644)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model": "x"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden.sqlite"), good, 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	single := filepath.Join(dir, "notes.txt")
	got, err := Expand([]string{dir, single})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "rank0.sqlite"), filepath.Join(dir, "rank1.sqlite"), filepath.Join(dir, "trace.json"), single}
	if !slices.Equal(got, want) {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	if _, err := Expand([]string{filepath.Join(dir, "sub")}); err == nil || !strings.Contains(err.Error(), "no nsys export or kineto trace") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := Expand([]string{filepath.Join(dir, "nope")}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing: %v", err)
	}
	// A corrupt file named like a capture stays in the list, so that Open
	// reports it rather than the rank silently missing.
	for name, data := range map[string][]byte{"rank2.json.gz": {0x1f, 0x8b, 8, 0, 1, 2, 3}, "rank3.sqlite": []byte("SQLite format 3\x00junk"),
		"rank4.pt.trace.json": []byte("{\"traceEv")} {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	got, err = Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"rank2.json.gz", "rank3.sqlite", "rank4.pt.trace.json"} {
		if !slices.Contains(got, filepath.Join(dir, name)) {
			t.Errorf("Expand dropped the corrupt capture %s: %q", name, got)
		}
	}
	if slices.Contains(got, filepath.Join(dir, "config.json")) {
		t.Errorf("Expand kept config.json: %q", got)
	}
}

func TestRealExportsOpen(t *testing.T) {
	for _, dir := range []string{filepath.Join("..", "testdata", "nsys"), filepath.Join("..", "..", "shared", "testdata", "nsys")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
		for _, p := range files {
			before := sum(t, p)
			c, err := Open(context.Background(), p, event.All)
			if err != nil && !errors.Is(err, nsys.ErrNoKernels) {
				t.Errorf("%s: %v", p, err)
			}
			if err == nil && len(c.Ranks) == 0 {
				t.Errorf("%s: no ranks", p)
			}
			if sum(t, p) != before {
				t.Errorf("%s changed", p)
			}
		}
	}
}

func TestRealKinetoOpen(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "kineto", "*.json*"))
	if len(files) == 0 {
		t.Skip("no kineto traces in testdata/kineto")
	}
	opened := 0
	for _, p := range files {
		if f, err := Detect(p); err != nil || f != event.Kineto {
			t.Errorf("%s: detected %q, %v", p, f, err)
			continue
		}
		c, err := Open(context.Background(), p, event.All)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "input: "+p+": ") {
				t.Errorf("%s: error does not name the file: %v", p, err)
			}
			continue
		}
		if c.Format != "kineto" {
			t.Errorf("%s: format %q", p, c.Format)
		}
		opened++
	}
	if opened == 0 {
		t.Error("no kineto trace opened")
	}
}

func TestOpenRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := mkfifo(p); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Open(context.Background(), p, event.Options{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), p) {
			t.Errorf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open blocked on a FIFO")
	}
}
