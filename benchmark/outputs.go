package benchmark

import (
	"fmt"

	"github.com/servecmp/servecmp/internal/atomicfile"
)

// Outputs are where a run's outcome goes, beside its Options: the result
// file (Out; "-" is stdout), the per-request records file, the progress
// line (Progress: auto, on or off) and the share of failed requests, 0 to
// 1, above which the run counts as failed (MaxFailedShare).
type Outputs struct {
	Out, Records, Progress string
	MaxFailedShare         float64
}

// Check checks Progress, MaxFailedShare and the output paths before
// anything is read or sent: each path writable, neither one of inputs
// (the workload and manifest files) nor the other. Every error is a
// mistake in the flags, which it names (--progress, --out, ...).
func (o *Outputs) Check(inputs ...string) error {
	switch {
	case o.Progress != "auto" && o.Progress != "on" && o.Progress != "off":
		return fmt.Errorf("--progress %q: want auto, on or off", o.Progress)
	case !(o.MaxFailedShare >= 0 && o.MaxFailedShare <= 1):
		return fmt.Errorf("--max-failed-share %g: want a share from 0 to 1", o.MaxFailedShare)
	}
	if o.Out != "-" {
		if err := atomicfile.Check("--out", o.Out, inputs...); err != nil {
			return err
		}
	}
	if err := atomicfile.Check("--records", o.Records, inputs...); err != nil {
		return err
	}
	return atomicfile.CheckDistinct([]string{"--out", "--records"}, []string{o.Out, o.Records})
}

// ShowsProgress reports whether the progress line is drawn: Progress on,
// or auto with the line going to a terminal.
func (o *Outputs) ShowsProgress(terminal bool) bool {
	return o.Progress == "on" || (o.Progress == "auto" && terminal)
}
