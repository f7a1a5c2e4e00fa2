package emit

import (
	"fmt"
	"io"

	"github.com/servecmp/servecmp/output/table"
)

// CSVDirUsage is the help text of --csv-dir.
const CSVDirUsage = "also write one tidy CSV file per table into `DIR` (DIR/<table>.csv; created if missing)"

// CSVDir writes ts as one tidy CSV file per table into dir and says so
// on log.
func CSVDir(log io.Writer, dir string, ts []*table.Table) error {
	paths, err := table.WriteCSVDir(dir, ts)
	if err != nil {
		return fmt.Errorf("--csv-dir %s: %w", dir, err)
	}
	fmt.Fprintf(log, "servecmp: wrote %d tables to %s\n", len(paths), dir)
	return nil
}
