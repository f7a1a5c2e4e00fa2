// This file resolves a rank's analysis window.

package classify

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/servecmp/servecmp/event"
	"github.com/servecmp/servecmp/internal/interval"
)

// WindowSpec chooses a rank's analysis window. With neither Explicit nor
// NVTX set, the window is the rank's capture span. Times are ns; Summarize
// counts an explicit Start/End from the session start (SessionOrigin).
type WindowSpec struct {
	Explicit   bool  // use [Start, End), cut to the capture span
	Start, End int64 // ns
	// NVTX, when set, spans from the first start to the last end of the
	// rank's NVTX ranges and annotations whose text matches.
	NVTX *regexp.Regexp
	// SkipStart and SkipEnd trim the window's ends (ns).
	SkipStart, SkipEnd int64
}

// SessionOrigin is the capture time that --window counts from, as the
// reader set it (event.Capture.SessionStart): 0 for an nsys export, the
// first event for a kineto trace. A nil capture has origin 0.
func SessionOrigin(c *event.Capture) int64 {
	if c == nil {
		return 0
	}
	return c.SessionStart
}

// fromOrigin formats capture time t as seconds from origin ("1.5s").
func fromOrigin(t, origin int64) string {
	return strconv.FormatFloat(float64(t-origin)/1e9, 'f', -1, 64) + "s"
}

// resolveWindow returns the rank's analysis window (capture times) and
// where it came from ("capture", "range" or "nvtx"); see WindowSpec, whose
// explicit Start/End the caller has already moved to capture times. An
// explicit range is cut to the capture span, so that the window length
// (the denominator of the busy share) counts only recorded time; a range
// outside the span is an error, as is a window that skips leave empty.
// Errors give times in seconds from origin, the session start that
// --window counts from.
func resolveWindow(rank *event.Rank, spec WindowSpec, origin int64) (interval.Interval, string, error) {
	sec := func(t int64) string { return fromOrigin(t, origin) }
	w := interval.Interval{Start: rank.SpanStart, End: rank.SpanEnd}
	from := "capture"
	switch {
	case spec.Explicit:
		var ok bool
		w, ok = interval.Clip(interval.Interval{Start: spec.Start, End: spec.End}, w)
		if !ok {
			return w, "", fmt.Errorf("%s: rank %s: --window %s:%s lies outside the capture, which spans %s:%s from the session start",
				rank.Source, rank.Label, sec(spec.Start), sec(spec.End), sec(rank.SpanStart), sec(rank.SpanEnd))
		}
		from = "range"
	case spec.NVTX != nil:
		var found bool
		w, found = nvtxWindow(rank, spec.NVTX)
		if !found {
			return w, "", fmt.Errorf("%s: rank %s: no NVTX range or annotation matches --window-nvtx %q", rank.Source, rank.Label, spec.NVTX)
		}
		from = "nvtx"
	}
	w.Start += spec.SkipStart
	w.End -= spec.SkipEnd
	if w.End <= w.Start {
		return w, "", fmt.Errorf("%s: rank %s: the analysis window is empty after --skip-start/--skip-end (%s:%s from the session start)",
			rank.Source, rank.Label, sec(w.Start), sec(w.End))
	}
	return w, from, nil
}

func nvtxWindow(rank *event.Rank, re *regexp.Regexp) (interval.Interval, bool) {
	match := map[uint32]bool{} // by text id, not by row
	var w interval.Interval
	found := false
	for i := range rank.Ranges {
		r := &rank.Ranges[i]
		if r.Kind != event.NVTX && r.Kind != event.Annotation {
			continue
		}
		ok, seen := match[r.Text]
		if !seen {
			ok = rank.Names != nil && re.MatchString(rank.Names.Name(r.Text))
			match[r.Text] = ok
		}
		if !ok {
			continue
		}
		if !found {
			w, found = interval.Interval{Start: r.Start, End: r.End}, true
			continue
		}
		w.Start, w.End = min(w.Start, r.Start), max(w.End, r.End)
	}
	return w, found
}
