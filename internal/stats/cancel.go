package stats

import "context"

// cancelEvery is how many resamples a bootstrap loop draws between two
// looks at its context: often enough to stop within milliseconds, rarely
// enough to cost nothing.
const cancelEvery = 64

// ctxErr is ctx's error, nil for a nil context.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}
