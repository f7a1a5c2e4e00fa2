package workload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mc is one Mooncake line.
func mc(ts, in, out string, ids string) string {
	return fmt.Sprintf(`{"timestamp": %s, "input_length": %s, "output_length": %s, "hash_ids": %s}`, ts, in, out, ids)
}

// TestTraceHostile: every malformed, contradictory or out-of-bounds trace
// is refused with one line naming the file and line and what is wrong,
// before anything is written.
func TestTraceHostile(t *testing.T) {
	ok := mc("0", "1000", "10", "[1, 2]")
	var many strings.Builder // 17 prompts of 16M tokens, 32768 ids each
	for i := range 17 {
		ids := make([]string, 32768)
		for j := range ids {
			ids[j] = fmt.Sprint(i*100000 + j)
		}
		many.WriteString(mc(fmt.Sprint(i), "16777216", "1", "["+strings.Join(ids, ",")+"]") + "\n")
	}
	tests := []struct {
		name, format, body, want string
		spec                     TraceSpec
	}{
		{"no hash ids", TraceMooncake, `{"timestamp": 0, "input_length": 10, "output_length": 5}`, `t:1: no "hash_ids"`, TraceSpec{}},
		{"no timestamp", TraceMooncake, ok + "\n" + `{"input_length": 10, "output_length": 5, "hash_ids": [1]}`, `t:2: no "timestamp"`, TraceSpec{}},
		{"null length", TraceMooncake, mc("0", "null", "5", "[1]"), `t:1: no "input_length"`, TraceSpec{}},
		{"not an object", TraceMooncake, `[1, 2]`, "t:1: want a JSON object", TraceSpec{}},
		{"truncated", TraceMooncake, ok + "\n" + `{"timestamp": 5, "input_`, "t:2: want a JSON object", TraceSpec{}},
		{"binary", TraceMooncake, "\x00\x01\xff", "t:1: want a JSON object", TraceSpec{}},
		{"back in time", TraceMooncake, mc("1000", "10", "1", "[1]") + "\n\n" + mc("500", "10", "1", "[2]"), "t:3: the timestamp goes back 500.000 ms from t:1's", TraceSpec{}},
		{"too many ids", TraceMooncake, mc("0", "1000", "10", "[1, 2, 3]"), "t:1: 3 hash ids, but input_length 1000 needs ⌈1000/512⌉ = 2", TraceSpec{}},
		{"too few ids", TraceMooncake, mc("0", "1025", "10", "[1, 2]"), "t:1: 2 hash ids, but input_length 1025 needs ⌈1025/512⌉ = 3", TraceSpec{}},
		{"block size", TraceMooncake, ok, "t:1: 2 hash ids, but input_length 1000 needs ⌈1000/16⌉ = 63 (give --block-size", TraceSpec{BlockSize: 16}},
		{"huge input", TraceMooncake, mc("0", "1000000000000", "10", "[1]"), `t:1: "input_length" must be a whole number of tokens in [1, 16777216], got 1000000000000`, TraceSpec{}},
		{"negative output", TraceMooncake, mc("0", "10", "-5", "[1]"), `t:1: "output_length" must be a whole number of tokens in [1, 16777216], got -5`, TraceSpec{}},
		{"zero output", TraceMooncake, mc("0", "10", "0", "[1]"), `"output_length" must be a whole number of tokens in [1, 16777216], got 0`, TraceSpec{}},
		{"fractional length", TraceMooncake, mc("0", "10.5", "1", "[1]"), `"input_length" must be a whole number`, TraceSpec{}},
		{"string length", TraceMooncake, mc("0", `"ten"`, "1", "[1]"), `t:1: "input_length" must be a number, got "ten"`, TraceSpec{}},
		{"NaN timestamp", TraceMooncake, mc(`"NaN"`, "10", "1", "[1]"), `t:1: "timestamp" must be a number`, TraceSpec{}},
		{"negative timestamp", TraceMooncake, mc("-1", "10", "1", "[1]"), `t:1: "timestamp" must be milliseconds in [0, 4e+12], got -1`, TraceSpec{}},
		{"huge timestamp", TraceMooncake, mc("1e300", "10", "1", "[1]"), `"timestamp" must be milliseconds in [0, 4e+12], got 1e300`, TraceSpec{}},
		{"overflowing timestamp", TraceMooncake, mc("1e999", "10", "1", "[1]"), `"timestamp" must be milliseconds`, TraceSpec{}},
		{"ids not a list", TraceMooncake, mc("0", "10", "1", "5"), `t:1: "hash_ids" must be a list of whole numbers`, TraceSpec{}},
		{"fractional id", TraceMooncake, mc("0", "10", "1", "[1.5]"), `t:1: "hash_ids"[0] must be a whole number in the 64-bit range, got 1.5`, TraceSpec{}},
		{"huge id", TraceMooncake, mc("0", "10", "1", "[1e30]"), `"hash_ids"[0] must be a whole number in the 64-bit range`, TraceSpec{}},
		{"repeated id", TraceMooncake, mc("0", "1000", "1", "[4, 4]"), "t:1: hash_ids[1]: hash id 4 follows hash id 4, but on line 1 it followed nothing (it starts the prompt)", TraceSpec{}},
		{"id after two prefixes", TraceMooncake, ok + "\n" + mc("1", "1000", "1", "[3, 2]"), "t:2: hash_ids[1]: hash id 2 follows hash id 3, but on line 1 it followed hash id 1", TraceSpec{}},
		{"empty", TraceMooncake, "\n\n", "t: no requests", TraceSpec{}},
		{"a day late", TraceMooncake, ok + "\n" + mc("100000000", "10", "1", "[9]"), "t:2: arrives 100000 s after the first request at --time-scale 1, later than the longest replay (86400 s)", TraceSpec{}},
		{"start past the end", TraceMooncake, ok, "t: no request at or after --start 5s (1 lines read)", TraceSpec{StartS: 5}},
		{"too many tokens", TraceMooncake, many.String(), "t:17: the requests up to here hold more than 268435456 prompt tokens", TraceSpec{}},
		{"long line", TraceMooncake, mc("0", "10", "1", "[1"+strings.Repeat(" ", MaxTraceLineBytes)+"]"), "t:1: line longer than 16777216 bytes", TraceSpec{}},
		{"bad gzip", TraceMooncake, "\x1f\x8b\x08garbage", "t: not a readable gzip file", TraceSpec{}},
		{"no column", TraceAzure, "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.1,10\n", "t:1: no column GeneratedTokens (columns: TIMESTAMP, ContextTokens", TraceSpec{}},
		{"azure empty", TraceAzure, "", "t: empty file", TraceSpec{}},
		{"azure header only", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n", "t: no requests", TraceSpec{}},
		{"bad time", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,10,5\n", `t:2: TIMESTAMP "yesterday" is not a date and time`, TraceSpec{}},
		{"old time", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n1900-01-01 00:00:00,10,5\n", `t:2: TIMESTAMP "1900-01-01 00:00:00" is not a date`, TraceSpec{}},
		{"azure back in time", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.5,10,5\n2023-11-16 18:15:46.25,10,5\n", "t:3: the timestamp goes back 250.000 ms from t:2's", TraceSpec{}},
		{"fields", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10\n", "t:2: 2 fields, the header names 3", TraceSpec{}},
		{"azure negative", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,-10,5\n", `t:2: "ContextTokens" must be a whole number of tokens in [1, 16777216], got -10`, TraceSpec{}},
		{"azure empty field", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,\n", `t:2: "GeneratedTokens" must be a whole number of tokens in [1, 16777216], got (empty)`, TraceSpec{}},
		{"azure huge", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,1e40\n", `"GeneratedTokens" must be a whole number`, TraceSpec{}},
		{"open quote", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n\"2023-11-16 18:15:46,10,5\n", "t:2: ", TraceSpec{}},
		{"azure a day late", TraceAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,5\n2023-11-18 18:15:46,10,5\n", "t:3: arrives 172800 s after the first request", TraceSpec{}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "t")
			if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			spec := tc.spec
			spec.Format = tc.format
			_, err := ReadTrace(context.Background(), "t", spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
		})
	}
}

// TestTraceNotRegular: a directory or a device is refused by the one
// opener.
func TestTraceNotRegular(t *testing.T) {
	for _, p := range []string{t.TempDir(), os.DevNull} {
		if _, err := ReadTrace(context.Background(), p, TraceSpec{Format: TraceMooncake}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
