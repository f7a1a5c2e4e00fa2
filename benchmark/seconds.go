package benchmark

import (
	"time"
)

// seconds and durSeconds convert between durations from a step's t=0
// and the seconds results carry.
func seconds(d time.Duration) float64    { return d.Seconds() }
func durSeconds(f float64) time.Duration { return time.Duration(f * 1e9) }
