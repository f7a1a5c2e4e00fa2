package nsys

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

// tamper runs SQL statements on the export at path, to write what no
// builder would: values of the wrong type, huge row ids, out-of-range ids.
func tamper(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// readBoth reads path through the fast scanner (where built in) and
// through database/sql alone, and demands the same outcome of both.
func readBoth(t *testing.T, path string) (*event.Capture, error) {
	t.Helper()
	fast, ferr := ReadWith(context.Background(), openRO(t, path), path, event.All, Config{File: path})
	slow, serr := Read(context.Background(), openRO(t, path), path, event.All)
	if (ferr == nil) != (serr == nil) {
		t.Fatalf("fast path error %v, driver path error %v", ferr, serr)
	}
	if ferr != nil {
		return nil, ferr
	}
	if !slices.Equal(fast.Warnings, slow.Warnings) || len(fast.Ranks) != len(slow.Ranks) {
		t.Fatalf("paths differ:\nfast %q\nslow %q", fast.Warnings, slow.Warnings)
	}
	return fast, nil
}

// TestHostileRowIDs checks that row ids far apart (whose span overflows
// int64) fail the read with an error instead of a panic, in the kernel
// and the CUDA API tables.
func TestHostileRowIDs(t *testing.T) {
	for _, table := range []string{tKernel, tRuntime} {
		for _, ids := range [][2]string{{"-4611686018427387904", "4611686018427387904"},
			{"-9223372036854775808", "9223372036854775807"}, {"1", "268435457"}} {
			t.Run(table+ids[1], func(t *testing.T) {
				b := nsystest.New(nsystest.Schema2024)
				b.Kernel(nsystest.K{PID: 1, Start: 1000, End: 2000, Name: "a"})
				b.Kernel(nsystest.K{PID: 1, Start: 3000, End: 4000, Name: "b"})
				path := b.Write(t)
				tamper(t, path, "UPDATE "+table+" SET rowid = "+ids[1]+" WHERE rowid = (SELECT max(rowid) FROM "+table+")",
					"UPDATE "+table+" SET rowid = "+ids[0]+" WHERE rowid = (SELECT min(rowid) FROM "+table+")")
				_, err := readBoth(t, path)
				if err == nil || !strings.Contains(err.Error(), "implausible row ids") {
					t.Fatalf("err = %v, want implausible row ids", err)
				}
			})
		}
	}
}

// TestHostileValues checks that every unusable value in a device-work
// row drops the row, counted by reason, and is never converted: text and
// blobs in integer columns, negative starts, durations beyond
// event.MaxDur, device ids beyond int32, launch shapes beyond int32.
func TestHostileValues(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	b.Kernel(nsystest.K{PID: 1, Start: 100, End: 200, Name: "good"})
	for i := range 12 {
		s := int64(1000 * (i + 1))
		b.Kernel(nsystest.K{PID: 1, Start: s, End: s + 500, Name: "bad"})
	}
	path := b.Write(t)
	const k = "UPDATE " + tKernel + " SET "
	tamper(t, path,
		k+"start = 'abc' WHERE start = 1000",
		k+"end = x'0102' WHERE start = 2000",
		k+"start = 2.5 WHERE start = 3000",
		k+"start = -5 WHERE start = 4000",
		k+"end = 36028797018963968 + 5001 WHERE start = 5000",                         // longer than 2^55
		k+"start = 4611686018427387905, end = 4611686018427387906 WHERE start = 6000", // beyond 2^62
		k+"deviceId = 4294967296 WHERE start = 7000",                                  // 2^32: would alias device 0
		k+"deviceId = 'gpu' WHERE start = 8000",
		k+"streamId = -1 WHERE start = 9000",
		k+"gridX = 1099511627776 WHERE start = 10000",
		k+"globalPid = NULL WHERE start = 11000",
		k+"blockZ = -1 WHERE start = 12000",
	)
	c, err := readBoth(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ranks) != 1 || len(c.Ranks[0].Work) != 1 || c.Ranks[0].Device != 0 {
		t.Fatalf("ranks %d, work %v", len(c.Ranks), c.Ranks[0].Work)
	}
	want := []string{
		"dropped 3 kernels " + dropWords[dropTimes],
		"dropped 1 kernels " + dropWords[dropNegative],
		"dropped 2 kernels " + dropWords[dropRange],
		"dropped 6 kernels " + dropWords[dropIDs],
	}
	for _, w := range want {
		if !slices.Contains(c.Warnings, w) {
			t.Errorf("warnings %q lack %q", c.Warnings, w)
		}
	}
}

// TestHostileLaunchesAndRanges checks the host tables: launch calls and
// NVTX ranges with unusable times are dropped and counted.
func TestHostileLaunchesAndRanges(t *testing.T) {
	b := nsystest.New(nsystest.Schema2024)
	b.Kernel(nsystest.K{PID: 1, Start: 10_000, End: 20_000, Name: "a"})
	b.Kernel(nsystest.K{PID: 1, Start: 30_000, End: 40_000, Name: "b"})
	b.NVTX(1, 1, 5_000, 45_000, "step")
	b.NVTX(1, 1, 6_000, 7_000, "bad")
	path := b.Write(t)
	tamper(t, path,
		"UPDATE "+tRuntime+" SET start = 'x' WHERE rowid = (SELECT min(rowid) FROM "+tRuntime+")",
		"UPDATE "+tNVTX+" SET start = 9223372036854775807 WHERE start = 6000")
	c, err := readBoth(t, path)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Ranks[0]
	if len(r.Launches) != 1 || len(r.Ranges) != 1 {
		t.Errorf("launches %d, ranges %d; want 1, 1", len(r.Launches), len(r.Ranges))
	}
	for _, w := range []string{"dropped 1 CUDA API launch calls", "dropped 1 NVTX ranges"} {
		if !slices.ContainsFunc(c.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("warnings %q lack %q", c.Warnings, w)
		}
	}
}

func TestGuard(t *testing.T) {
	err := guard(func() error { panic("index out of range [3] with length 2") })
	if err == nil || !strings.Contains(err.Error(), "internal error: index out of range") {
		t.Errorf("guard = %v", err)
	}
	want := errors.New("plain")
	if err := guard(func() error { return want }); err != want {
		t.Errorf("guard = %v, want the function's error", err)
	}
}

func TestRowSpan(t *testing.T) {
	tests := []struct {
		lo, hi int64
		n      int
		ok     bool
	}{
		{1, 1, 1, true},
		{1, 10, 10, true},
		{-5, 5, 11, true},
		{1, maxRowSpan, maxRowSpan, true},
		{0, maxRowSpan, 0, false},
		{10, 1, 0, false},
		{-1 << 62, 1 << 62, 0, false},
		{-1 << 63, 1<<63 - 1, 0, false},
	}
	for _, tc := range tests {
		n, err := rowSpan("T", tc.lo, tc.hi)
		if (err == nil) != tc.ok || n != tc.n {
			t.Errorf("rowSpan(%d, %d) = %d, %v; want %d, ok %v", tc.lo, tc.hi, n, err, tc.n, tc.ok)
		}
	}
}
