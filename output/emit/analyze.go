package emit

import (
	"fmt"
	"io"

	"github.com/servecmp/servecmp/classify"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/output/present"
	"github.com/servecmp/servecmp/output/table"
)

// Analysis writes an analysis report: the mergeable summary to the file
// save ("": none), then the report to stdout with enc (the present
// tables, the top names per region; 0: all), or as the saved type's JSON
// when enc is nil, then the warnings to stderr.
func Analysis(stdout, stderr io.Writer, rep *classify.Report, save string, enc table.Encoder, top int) error {
	if save != "" {
		if err := atomicfile.WriteFunc(save, rep.WriteSummary); err != nil {
			return fmt.Errorf("--save %w", err)
		}
	}
	var err error
	if enc == nil {
		err = rep.Trim(top).WriteJSON(stdout)
	} else {
		err = enc(stdout, present.Analysis(rep, top))
	}
	if err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	Warn(stderr, rep.Warnings...)
	return nil
}
