package main

import (
	"fmt"
	"os"

	"github.com/servecmp/servecmp/internal/table"
)

// csvDirUsage is the help text of --csv-dir.
const csvDirUsage = "also write one tidy CSV file per table into `DIR` (DIR/<table>.csv; created if missing)"

// writeCSVDir writes ts as one tidy CSV file per table into dir and says
// so on stderr.
func writeCSVDir(e *env, dir string, ts []*table.Table) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--csv-dir %s: %w", dir, err)
	}
	paths, err := table.WriteCSVDir(dir, ts)
	if err != nil {
		return fmt.Errorf("--csv-dir %s: %w", dir, err)
	}
	fmt.Fprintf(e.stderr, "servecmp: wrote %d tables to %s\n", len(paths), dir)
	return nil
}
