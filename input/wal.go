package input

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/nsys"
)

// walPending reports whether the SQLite file at path has a write-ahead
// log beside it holding rows not yet copied into the file: an immutable
// open (which ignores the log) would miss them.
func walPending(path string) bool {
	st, err := os.Stat(path + "-wal")
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

// walDSN is DSN without immutable: SQLite then reads the write-ahead log
// (read-only; it may create the -shm index beside the file).
func walDSN(path string) (string, error) {
	dsn, err := DSN(path)
	if err != nil {
		return "", err
	}
	return strings.Replace(dsn, "&immutable=1", "", 1), nil
}

// openWAL reads an export whose write-ahead log holds rows: through the
// log when SQLite can open it read-only, else (a read-only directory
// without the -shm index) as immutable, with a warning that rows in the
// log were not read.
func openWAL(ctx context.Context, path string, opts event.Options) (*event.Capture, error) {
	dsn, err := walDSN(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	return openWALDSN(ctx, path, dsn, opts)
}

// openWALDSN is openWAL with the DSN that reads the log.
func openWALDSN(ctx context.Context, path, dsn string, opts event.Options) (*event.Capture, error) {
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, wrap(path, err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		c, ierr := openImmutable(ctx, path, opts)
		if ierr != nil {
			return nil, ierr
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s-wal holds rows not yet written into the export, and SQLite cannot read it here (%s); "+
			"they were left out (open the export once with sqlite3, or copy it with its -wal file to a writable directory)",
			path, strings.Join(strings.Fields(err.Error()), " ")))
		return c, nil
	}
	db.SetMaxIdleConns(8)
	// The fast scanner opens the file immutable: read through the pool.
	c, err := nsys.ReadWith(ctx, db, path, opts, nsys.Config{})
	if err != nil {
		return nil, wrap(path, err)
	}
	return c, nil
}
