package profile

import (
	"strings"
	"testing"
)

// FuzzParseBlock feeds arbitrary bytes to the reader of a profile
// result's block (analyze --work-from): whatever it accepts has a window
// that starts at or after 0 and ends after it starts.
func FuzzParseBlock(f *testing.F) {
	f.Add([]byte(`{"schema":"servecmp.profile/1","profile":{"api":"vllm","start_s":1.5,"stop_s":4}}`))
	f.Add([]byte(`{"profile":{"start_s":-3,"stop_s":4}}`))
	f.Add([]byte(`{"profile":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseBlock("p.json", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if b.StartS < 0 || b.StopS <= b.StartS {
			t.Fatalf("accepted window [%g, %g]", b.StartS, b.StopS)
		}
	})
}
