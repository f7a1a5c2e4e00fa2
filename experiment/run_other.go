//go:build !unix

package experiment

import (
	"context"
	"errors"
)

// Run needs process groups to launch and stop engines; on other systems
// it refuses before doing anything.
func Run(ctx context.Context, e *Experiment, dir string, o RunOptions) (*Outcome, error) {
	return nil, errors.New("servecmp run needs a Unix system (launched engines are stopped as process groups); run the steps one by one (check, benchmark, compare)")
}
