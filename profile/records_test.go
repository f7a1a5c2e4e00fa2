package profile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/benchmark"
)

// TestRunRecordedNoRun checks that a run that never starts leaves no
// records file and reports its own error, not a records one.
func TestRunRecordedNoRun(t *testing.T) {
	recs := filepath.Join(t.TempDir(), "records.jsonl")
	for _, path := range []string{"", recs} {
		res, runErr, recErr := RunRecorded(context.Background(), benchmark.Config{}, Options{}, path)
		if res != nil || runErr == nil || !strings.Contains(runErr.Error(), "profile needs the server URL") || recErr != nil {
			t.Errorf("records %q: result %v, run error %v, records error %v; want only the configuration's error", path, res, runErr, recErr)
		}
	}
	if _, err := os.Stat(recs); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("records file left behind: %v", err)
	}
}
