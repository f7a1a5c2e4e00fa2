package input

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

// walExport returns an export in WAL mode whose last committed kernel
// lives only in its -wal file, as a crashed or still-open writer leaves
// it: the file and its log are copied while the writer holds them.
func walExport(t *testing.T) string {
	t.Helper()
	b := nsystest.New(nsystest.Schema2024)
	b.Kernel(nsystest.K{PID: 7, Start: 1000, End: 2000, Name: "in_file"})
	src := b.Write(t)
	db, err := sql.Open("sqlite3", "file:"+src)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0",
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL",
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 5000, end = 6000 WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	dir := t.TempDir()
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(src + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "w.sqlite"+suffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "w.sqlite")
}

// TestWALRowsRead checks that committed rows still in the -wal file are
// read, not silently lost under immutable=1.
func TestWALRowsRead(t *testing.T) {
	path := walExport(t)
	if !walPending(path) {
		t.Fatal("the fixture has no pending -wal file")
	}
	c, err := Open(context.Background(), path, event.All)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Ranks[0].Work); n != 2 {
		t.Errorf("%d kernels read, want 2 (one of them in the -wal file)", n)
	}
}

// TestWALUnreadableWarns checks that when SQLite cannot open the log
// (here: a DSN naming a VFS that does not exist), the file is still read
// and a warning says rows were left out.
func TestWALUnreadableWarns(t *testing.T) {
	path := walExport(t)
	dsn, err := walDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := openWALDSN(context.Background(), path, dsn+"&vfs=no-such-vfs", event.All)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Ranks[0].Work); n != 1 {
		t.Errorf("%d kernels read, want the 1 in the file", n)
	}
	if !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "-wal holds rows") }) {
		t.Errorf("warnings %q say nothing of the -wal file", c.Warnings)
	}
}
