package emit

import (
	"fmt"
	"io"

	"github.com/servecmp/servecmp/check/checkreport"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/output/present"
)

// CheckReport writes a check report as JSON to the file out ("": none, naming
// it on log) and to stdout as JSON or, unless asJSON, as text.
func CheckReport(stdout, log io.Writer, out string, asJSON bool, rep *checkreport.Report) error {
	b, err := rep.JSON()
	if err != nil {
		return err
	}
	if out != "" {
		if err := atomicfile.Write(out, b); err != nil {
			return fmt.Errorf("writing %v", err) // the error names the file
		}
		fmt.Fprintln(log, "check: wrote", out)
	}
	if asJSON {
		_, err = stdout.Write(b)
		return err
	}
	present.WriteCheckText(stdout, rep)
	return nil
}
