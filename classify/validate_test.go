package classify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// savedSummary returns a valid saved summary, changed by edit.
func savedSummary(t testing.TB, edit func(*Report)) []byte {
	t.Helper()
	r, err := NewReport("d", []*RankSummary{rankSummary("a", 10, 5, 1), rankSummary("b", 20, 8, 2)})
	if err != nil {
		t.Fatal(err)
	}
	r.Schema = SummarySchema
	if edit != nil {
		edit(r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadSummaryRefuses checks that summaries no analysis writes are
// refused before merge or compare uses them.
func TestReadSummaryRefuses(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"empty file", "", "empty file"},
		{"empty object", "{}", "schema"},
		{"no ranks", `{"schema":"` + SummarySchema + `","ranks":[]}`, "no ranks"},
		{"null rank", `{"schema":"` + SummarySchema + `","ranks":[null]}`, "null"},
		{"wrong schema", strings.Replace(string(savedSummary(t, nil)), SummarySchema, "servecmp.summary/99", 1), "schema"},
		{"empty label", string(savedSummary(t, func(r *Report) { r.Ranks[0].Rank = " " })), "no label"},
		{"reversed window", string(savedSummary(t, func(r *Report) { r.Ranks[0].WindowStartNs, r.Ranks[0].WindowEndNs = 10, 5 })), "window ends"},
		{"negative busy", string(savedSummary(t, func(r *Report) { r.Ranks[1].DeviceWorkBusyNs = -1 })), "device_work_busy_ns is -1"},
		{"huge sum", string(savedSummary(t, func(r *Report) { r.Ranks[0].DeviceWorkSumNs = 1 << 62 })), "device_work_sum_ns"},
		{"negative region", string(savedSummary(t, func(r *Report) { r.Ranks[0].Regions[0].SumNs = -5 })), "sum_ns is -5"},
		{"negative work", string(savedSummary(t, func(r *Report) { r.Ranks[0].Work = &Work{Requests: -1} })), "requests is -1"},
		{"duplicate label", string(savedSummary(t, func(r *Report) { r.Ranks[1].Rank = "a" })), "duplicate rank label"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSummary(strings.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadSummary = %v, want an error with %q", err, tc.want)
			}
		})
	}
	if _, err := ReadSummary(bytes.NewReader(savedSummary(t, nil))); err != nil {
		t.Errorf("valid summary refused: %v", err)
	}
}

// FuzzReadSummary feeds arbitrary bytes to the summary reader; whatever
// it accepts must merge with itself (relabelled) and render without a
// panic.
func FuzzReadSummary(f *testing.F) {
	f.Add(savedSummary(f, nil))
	f.Add([]byte(`{"schema":"` + SummarySchema + `","ranks":[{"rank":"x","window_end_ns":5}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadSummary(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := r.WriteSummary(&b); err != nil {
			t.Fatalf("WriteSummary: %v", err)
		}
		again, err := ReadSummary(&b)
		if err != nil {
			t.Fatalf("a summary read back fails: %v", err)
		}
		for _, s := range again.Ranks {
			s.Rank += "'"
		}
		if _, err := Merge(r, again); err != nil && !strings.Contains(err.Error(), "duplicate") {
			t.Fatalf("Merge: %v", err)
		}
	})
}
