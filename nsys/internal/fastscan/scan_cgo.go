//go:build cgo && (linux || darwin)

package fastscan

/*
// The few SQLite C API calls this package makes. The library itself is
// the copy github.com/mattn/go-sqlite3 links into the binary (imported
// below), so these prototypes are declared here instead of including a
// header from another module.
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
typedef struct sqlite3_value sqlite3_value;
int sqlite3_open_v2(const char*, sqlite3**, int, const char*);
int sqlite3_close_v2(sqlite3*);
int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
int sqlite3_bind_int64(sqlite3_stmt*, int, long long);
int sqlite3_step(sqlite3_stmt*);
sqlite3_value *sqlite3_column_value(sqlite3_stmt*, int);
int sqlite3_value_type(sqlite3_value*);
long long sqlite3_value_int64(sqlite3_value*);
int sqlite3_finalize(sqlite3_stmt*);
const char *sqlite3_errmsg(sqlite3*);
const char *sqlite3_errstr(int);

#define FS_OPEN_READONLY 0x00000001
#define FS_OPEN_URI      0x00000040
#define FS_OPEN_NOMUTEX  0x00008000
#define FS_ROW 100
#define FS_DONE 101
#define FS_INTEGER 1

static int fs_open(_GoString_ uri, sqlite3** db) {
	// _GoString_ is not NUL-terminated: the caller passes a URI ending in
	// a NUL byte.
	return sqlite3_open_v2(_GoStringPtr(uri), db, FS_OPEN_READONLY | FS_OPEN_URI | FS_OPEN_NOMUTEX, 0);
}

static int fs_prepare(sqlite3* db, _GoString_ q, sqlite3_stmt** st) {
	return sqlite3_prepare_v2(db, _GoStringPtr(q), (int)_GoStringLen(q), st, 0);
}

// fs_step_batch steps st up to max rows and copies each row's first ncol
// columns as integers into vals (row-major) and a NULL bit mask per row
// into nulls. It returns FS_ROW when the batch is full, FS_DONE at the
// end, or an SQLite error code.
static int fs_step_batch(sqlite3_stmt* st, int ncol, long long* vals, unsigned int* nulls, int max, int* got) {
	int n = 0;
	int rc = FS_ROW;
	while (n < max) {
		rc = sqlite3_step(st);
		if (rc != FS_ROW) {
			break;
		}
		long long* v = vals + (long)n * ncol;
		unsigned int m = 0;
		for (int i = 0; i < ncol; i++) {
			sqlite3_value* x = sqlite3_column_value(st, i);
			// NULL, and any value that is not an integer (text, blob,
			// real), is flagged rather than converted.
			if (sqlite3_value_type(x) != FS_INTEGER) {
				m |= 1u << i;
				v[i] = 0;
			} else {
				v[i] = sqlite3_value_int64(x);
			}
		}
		nulls[n] = m;
		n++;
	}
	*got = n;
	return rc;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"github.com/servecmp/servecmp/internal/sqliteuri"
	"unsafe"

	_ "github.com/mattn/go-sqlite3" // links the SQLite library called above
)

// Available reports whether this build has the scanner.
const Available = true

// Scan opens file read-only and immutable (with a 256 KiB page cache: a
// scan reads each page once), runs query (whose ncol
// columns, at most 32, are all integers) with args bound to ?1, ?2..., and
// calls fn with batches of rows: vals holds len(nulls) rows of ncol values
// each; bit i of nulls[r] is set when column i of row r is NULL or not an
// integer (its value then reads 0). vals and
// nulls are reused after fn returns. ctx is checked between batches.
func Scan(ctx context.Context, file, query string, args []int64, ncol int, fn func(vals []int64, nulls []uint32) error) error {
	if ncol > 32 || ncol < 1 {
		return fmt.Errorf("fastscan: %d columns", ncol)
	}
	uri, err := fileURI(file)
	if err != nil {
		return err
	}
	var db *C.sqlite3
	rc := C.fs_open(uri+"\x00", &db)
	defer C.sqlite3_close_v2(db) // a NULL handle is a no-op
	if rc != 0 {
		if db != nil {
			return fmt.Errorf("opening %s: %s", file, C.GoString(C.sqlite3_errmsg(db)))
		}
		return fmt.Errorf("opening %s: %s", file, C.GoString(C.sqlite3_errstr(rc)))
	}
	if err := exec(db, "PRAGMA cache_size = -256"); err != nil {
		return err
	}
	var st *C.sqlite3_stmt
	if rc := C.fs_prepare(db, query, &st); rc != 0 {
		return errors.New(C.GoString(C.sqlite3_errmsg(db)))
	}
	defer C.sqlite3_finalize(st)
	for i, a := range args {
		if rc := C.sqlite3_bind_int64(st, C.int(i+1), C.longlong(a)); rc != 0 {
			return errors.New(C.GoString(C.sqlite3_errmsg(db)))
		}
	}
	return stepAll(ctx, db, st, ncol, fn)
}

// exec runs a statement that returns no rows of interest.
func exec(db *C.sqlite3, q string) error {
	var st *C.sqlite3_stmt
	if rc := C.fs_prepare(db, q, &st); rc != 0 {
		return errors.New(C.GoString(C.sqlite3_errmsg(db)))
	}
	defer C.sqlite3_finalize(st)
	for {
		switch rc := C.sqlite3_step(st); rc {
		case C.FS_ROW:
		case C.FS_DONE:
			return nil
		default:
			return errors.New(C.GoString(C.sqlite3_errmsg(db)))
		}
	}
}

// stepAll copies the rows of st out batch by batch.
func stepAll(ctx context.Context, db *C.sqlite3, st *C.sqlite3_stmt, ncol int, fn func([]int64, []uint32) error) error {
	vals := make([]int64, BatchRows*ncol)
	nulls := make([]uint32, BatchRows)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var got C.int
		rc := C.fs_step_batch(st, C.int(ncol), (*C.longlong)(unsafe.Pointer(&vals[0])),
			(*C.uint)(unsafe.Pointer(&nulls[0])), BatchRows, &got)
		if n := int(got); n > 0 {
			if err := fn(vals[:n*ncol], nulls[:n]); err != nil {
				return err
			}
		}
		switch rc {
		case C.FS_ROW:
		case C.FS_DONE:
			return nil
		default:
			return errors.New(C.GoString(C.sqlite3_errmsg(db)))
		}
	}
}

// fileURI returns the read-only, immutable SQLite URI of file: '%', '?',
// '#' and control bytes are escaped. A NUL byte cannot be passed.
func fileURI(file string) (string, error) {
	f, err := sqliteuri.File(file)
	if err != nil {
		return "", fmt.Errorf("fastscan: %w", err)
	}
	return f + "?mode=ro&immutable=1", nil
}
