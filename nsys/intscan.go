package nsys

/*
// Prototypes of the SQLite C API. The symbols are those of the SQLite
// library that github.com/mattn/go-sqlite3 compiles into every binary that
// uses it; this package only declares the few it calls.
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
int sqlite3_bind_int64(sqlite3_stmt*, int, long long);
int sqlite3_step(sqlite3_stmt*);
typedef struct sqlite3_value sqlite3_value;
sqlite3_value *sqlite3_column_value(sqlite3_stmt*, int);
int sqlite3_value_type(sqlite3_value*);
long long sqlite3_value_int64(sqlite3_value*);
int sqlite3_finalize(sqlite3_stmt*);
const char *sqlite3_errmsg(sqlite3*);
const char *sqlite3_errstr(int);

#define NSYS_ROW 100
#define NSYS_DONE 101
#define NSYS_NULL 5

// nsys_step_batch steps st up to max rows and copies each row's first
// ncol columns as integers into vals (row-major) and a NULL bit mask per
// row into nulls. It returns NSYS_ROW when the batch is full, NSYS_DONE at
// the end, or an SQLite error code.
static int nsys_step_batch(sqlite3_stmt* st, int ncol, long long* vals, unsigned int* nulls, int max, int* got) {
	int n = 0;
	int rc = NSYS_ROW;
	while (n < max) {
		rc = sqlite3_step(st);
		if (rc != NSYS_ROW) {
			break;
		}
		long long* v = vals + (long)n * ncol;
		unsigned int m = 0;
		for (int i = 0; i < ncol; i++) {
			sqlite3_value* x = sqlite3_column_value(st, i);
			if (sqlite3_value_type(x) == NSYS_NULL) {
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

static int nsys_prepare(sqlite3* db, _GoString_ q, sqlite3_stmt** st) {
	return sqlite3_prepare_v2(db, _GoStringPtr(q), (int)_GoStringLen(q), st, 0);
}
*/
import "C"

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unsafe"
)

// batchRows is how many rows one C call copies out.
const batchRows = 2048

// forceDriverPath makes intScan use the driver's row interface even when
// the C fast path is available (tests compare both paths).
var forceDriverPath = false

// intScan runs query, whose columns are all integers (at most 32), and
// calls fn with batches of rows: vals holds len(nulls) rows of ncol values
// each, row-major; bit i of nulls[r] is set when column i of row r is NULL
// (its value then reads 0). args bind to ?1, ?2...
//
// When the connection is the mattn SQLite driver, rows are copied in
// batches by one C call each, at close to SQLite's own scan speed; on any
// other driver it falls back to rawScan.
func intScan(ctx context.Context, db *sql.DB, query string, args []int64, ncol int, fn func(vals []int64, nulls []uint32) error) error {
	if ncol > 32 || ncol < 1 {
		return fmt.Errorf("intScan: %d columns", ncol)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		if h := sqliteHandle(dc); h != nil && !forceDriverPath {
			return cScan(ctx, h, query, args, ncol, fn)
		}
		return driverScan(ctx, dc, query, args, ncol, fn)
	})
}

// sqliteHandle returns the C database handle of a mattn driver
// connection, or nil when dc is not one.
func sqliteHandle(dc any) *C.sqlite3 {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	if v.Elem().Type().PkgPath() != "github.com/mattn/go-sqlite3" || v.Elem().Type().Name() != "SQLiteConn" {
		return nil
	}
	f := v.Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil
	}
	return (*C.sqlite3)(f.UnsafePointer())
}

func cScan(ctx context.Context, h *C.sqlite3, query string, args []int64, ncol int, fn func([]int64, []uint32) error) error {
	var st *C.sqlite3_stmt
	if rc := C.nsys_prepare(h, query, &st); rc != 0 {
		return errors.New(C.GoString(C.sqlite3_errmsg(h)))
	}
	defer C.sqlite3_finalize(st)
	for i, a := range args {
		if rc := C.sqlite3_bind_int64(st, C.int(i+1), C.longlong(a)); rc != 0 {
			return errors.New(C.GoString(C.sqlite3_errmsg(h)))
		}
	}
	vals := make([]int64, batchRows*ncol)
	nulls := make([]uint32, batchRows)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var got C.int
		rc := C.nsys_step_batch(st, C.int(ncol), (*C.longlong)(unsafe.Pointer(&vals[0])),
			(*C.uint)(unsafe.Pointer(&nulls[0])), batchRows, &got)
		if n := int(got); n > 0 {
			if err := fn(vals[:n*ncol], nulls[:n]); err != nil {
				return err
			}
		}
		switch rc {
		case C.NSYS_ROW:
			continue
		case C.NSYS_DONE:
			return nil
		default:
			return errors.New(C.GoString(C.sqlite3_errmsg(h)))
		}
	}
}

// driverScan is intScan over the database/sql driver interfaces.
func driverScan(ctx context.Context, dc any, query string, args []int64, ncol int, fn func([]int64, []uint32) error) error {
	st, rows, err := driverQuery(dc, query, intArgs(args))
	if err != nil {
		return err
	}
	defer st.Close()
	defer rows.Close()
	row := make([]driver.Value, ncol)
	vals := make([]int64, 0, batchRows*ncol)
	nulls := make([]uint32, 0, batchRows)
	for {
		err := rows.Next(row)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if err == nil {
			var m uint32
			for i, v := range row {
				x, ok := i64(v)
				if !ok {
					m |= 1 << i
				}
				vals = append(vals, x)
			}
			nulls = append(nulls, m)
		}
		if len(nulls) == batchRows || (err != nil && len(nulls) > 0) {
			if e := ctx.Err(); e != nil {
				return e
			}
			if e := fn(vals, nulls); e != nil {
				return e
			}
			vals, nulls = vals[:0], nulls[:0]
		}
		if err != nil {
			return nil
		}
	}
}
