package event

// Bounds on times that readers accept. A reader checks every time it
// reads against them and drops (and counts in Capture.Warnings) the rows
// outside, so that no arithmetic downstream can overflow:
//   - times lie in [0, MaxTime] ns;
//   - a piece of work lasts at most MaxDur ns (package classify packs
//     durations into 56 bits).
const (
	MaxTime = int64(1) << 62 // about 146 years of ns
	MaxDur  = int64(1) << 55 // about 1.1 years of ns
)

// TimesOK reports whether [start, end] is a valid interval of work:
// 0 <= start <= end <= MaxTime and end-start <= MaxDur.
func TimesOK(start, end int64) bool {
	return start >= 0 && end >= start && end <= MaxTime && end-start <= MaxDur
}

// HostTimesOK reports whether [start, end] is a valid interval of host
// activity (a launch call, a range, a graph-node event): host clocks may
// start before the session's 0, so only -MaxTime <= start <= end <=
// MaxTime is asked.
func HostTimesOK(start, end int64) bool {
	return start >= -MaxTime && end >= start && end <= MaxTime
}
