package nsys

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/testkit/nsystest"
)

// fuzzBytes hands out the fuzzer's bytes as choices; it gives zeros
// once they run out.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzBytes) int64() int64 {
	var buf [8]byte
	n := copy(buf[:], f.b)
	f.b = f.b[n:]
	return int64(binary.LittleEndian.Uint64(buf[:]))
}

// hostileValues are the SQL values a tamper step may write into any
// column: other types, signs and the edges of int32, int64 and the
// event bounds.
var hostileValues = []string{"NULL", "'text'", "'123'", "x'00ff'", "1.5", "-1", "0", "2147483648", "4294967296",
	"4611686018427387904", "9223372036854775807", "-9223372036854775808", "36028797018963969", "-4611686018427387904"}

var fuzzColumns = map[string][]string{
	tKernel: {"rowid", "start", "end", "deviceId", "streamId", "globalPid", "demangledName", "shortName",
		"correlationId", "gridX", "blockZ", "graphNodeId"},
	tRuntime: {"rowid", "start", "end", "globalTid", "nameId", "correlationId"},
	tNVTX:    {"start", "end", "globalTid", "text", "eventType"},
}

// FuzzReadStructured builds an export from the fuzzer's bytes, not raw
// SQLite bytes: they choose kernels (process, device, stream, times,
// name) and NVTX ranges through nsystest, then tamper steps that write
// hostile values into chosen rows and columns. Reading it must never
// panic; both scan paths must agree; what is read must keep the event
// model's invariants.
func FuzzReadStructured(f *testing.F) {
	f.Add([]byte{3, 0, 0, 1, 10, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 1, 2, 0, 5, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 9, 1, 1, 3, 1, 10})
	f.Add([]byte("\x04\x00\x01\x02hostile rows and columns \xff\xfe\x80\x7f"))
	// two kernels whose row ids are then set to -2^62 and 2^62
	k := []byte{0, 0, 0xe8, 3, 0, 0, 0, 0, 0, 0, 0xf4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	f.Add(slices.Concat([]byte{1}, k, k, []byte{0, 2, 0, 0, 9, 1, 0, 0, 13, 0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{b: data}
		// not t.TempDir: a fuzz test's name holds '#', which ends the
		// file name in the builder's SQLite URI
		dir, err := os.MkdirTemp("", "nsysfuzz")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		path := filepath.Join(dir, "f.sqlite")
		if err := buildFuzzExport(in, path); err != nil {
			t.Skip(err)
		}
		tamperFuzz(in, path)
		checkFuzzRead(t, path)
	})
}

// buildFuzzExport writes an export of 1 to 8 kernels and up to 3 NVTX
// ranges chosen by in.
func buildFuzzExport(in *fuzzBytes, path string) error {
	b := nsystest.New(nsystest.Schema2024)
	for i := range 1 + int(in.byte()%8) {
		pid, dev := int64(1+in.byte()%3), int32(in.byte()%3)
		start := in.int64() % (1 << 40)
		end := start + in.int64()%(1<<20)
		b.Kernel(nsystest.K{PID: pid, Device: dev, Stream: int32(in.byte() % 4), Start: start, End: end,
			Name: fmt.Sprintf("k%d\x1b[%d", i%3, in.byte()), NoLaunch: in.byte()%4 == 0})
	}
	for range in.byte() % 4 {
		s := in.int64() % (1 << 40)
		b.NVTX(int64(1+in.byte()%3), 1, s, s+in.int64()%(1<<30), "r")
	}
	return b.WriteFile(path)
}

// tamperFuzz applies up to 6 tamper steps chosen by in: each writes one
// hostile value into one column of one row. Statements SQLite refuses
// (NULL in a NOT NULL column) are skipped.
func tamperFuzz(in *fuzzBytes, path string) {
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		return
	}
	defer db.Close()
	tables := []string{tKernel, tRuntime, tNVTX}
	for range in.byte() % 7 {
		table := tables[int(in.byte())%len(tables)]
		cols := fuzzColumns[table]
		col := cols[int(in.byte())%len(cols)]
		val := hostileValues[int(in.byte())%len(hostileValues)]
		row := int(in.byte() % 8)
		db.Exec(fmt.Sprintf("UPDATE %s SET %s = %s WHERE rowid = (SELECT rowid FROM %s ORDER BY rowid LIMIT 1 OFFSET %d)",
			table, col, val, table, row))
	}
}

// checkFuzzRead reads path both ways and checks the outcome.
func checkFuzzRead(t *testing.T, path string) {
	db := openRO(t, path)
	fast, ferr := ReadWith(context.Background(), db, path, event.All, Config{File: path, MinChunk: 2})
	slow, serr := Read(context.Background(), db, path, event.All)
	if (ferr == nil) != (serr == nil) {
		t.Fatalf("fast path: %v; driver path: %v", ferr, serr)
	}
	if ferr != nil {
		if strings.Contains(ferr.Error(), "\n") || strings.Contains(ferr.Error(), "internal error") {
			t.Fatalf("error %q", ferr)
		}
		return
	}
	if len(fast.Ranks) != len(slow.Ranks) || strings.Join(fast.Warnings, "|") != strings.Join(slow.Warnings, "|") {
		t.Fatalf("paths differ: %d/%d ranks, warnings\n%q\n%q", len(fast.Ranks), len(slow.Ranks), fast.Warnings, slow.Warnings)
	}
	if a, b := dump(fast), dump(slow); a != b {
		t.Fatalf("paths differ:\n%s", firstDiff(a, b))
	}
	for i, r := range fast.Ranks {
		if r.Device < 0 || len(r.Work) != len(slow.Ranks[i].Work) {
			t.Fatalf("rank %d: device %d, %d vs %d work", i, r.Device, len(r.Work), len(slow.Ranks[i].Work))
		}
		for _, w := range r.Work {
			if !event.TimesOK(w.Start, w.End) || w.Start < r.SpanStart || w.End > r.SpanEnd {
				t.Fatalf("work %+v breaks the bounds or the span [%d, %d]", w, r.SpanStart, r.SpanEnd)
			}
		}
	}
}
