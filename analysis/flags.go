package analysis

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/servecmp/servecmp/classify"
)

// Flags are analyze's summarizer choices as the user typed them; Summary
// turns them into classify.Options. Empty means not given.
type Flags struct {
	Window     string // START:END, from the session start
	WindowNVTX string // RE2 of the host ranges spanning the window
	SkipStart  string // duration trimmed from the window's start
	SkipEnd    string // duration trimmed from the window's end
	Iteration  string // RE2 of the iteration ranges
	Work       string // requests=N,output_tokens=M,input_tokens=K
	WorkFrom   string // result file of servecmp profile (Options reads it)
}

// Summary parses f. Every error is one line naming the flag.
func (f Flags) Summary() (classify.Options, error) {
	var o classify.Options
	if f.Window != "" && f.WindowNVTX != "" {
		return o, errors.New("--window and --window-nvtx exclude each other")
	}
	if f.Window != "" {
		start, end, err := parseWindow(f.Window)
		if err != nil {
			return o, fmt.Errorf("--window %q: %v", f.Window, err)
		}
		o.Window.Explicit, o.Window.Start, o.Window.End = true, start, end
	}
	var err error
	if o.Window.NVTX, err = compile("--window-nvtx", f.WindowNVTX); err != nil {
		return o, err
	}
	if o.Window.SkipStart, err = durationFlag("--skip-start", f.SkipStart); err != nil {
		return o, err
	}
	if o.Window.SkipEnd, err = durationFlag("--skip-end", f.SkipEnd); err != nil {
		return o, err
	}
	if o.Iteration, err = compile("--iteration-nvtx", f.Iteration); err != nil {
		return o, err
	}
	if f.Work != "" {
		if o.Work, err = classify.ParseWork(f.Work); err != nil {
			return o, fmt.Errorf("--work: %v", err)
		}
	}
	return o, nil
}

// parseWindow reads START:END (ns), END after START.
func parseWindow(s string) (start, end int64, err error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, errors.New("want START:END")
	}
	if start, err = ParseDuration(a); err != nil {
		return 0, 0, fmt.Errorf("start: %v", err)
	}
	if end, err = ParseDuration(b); err != nil {
		return 0, 0, fmt.Errorf("end: %v", err)
	}
	if end <= start {
		return 0, 0, errors.New("end must be after start")
	}
	return start, end, nil
}

func compile(flag, re string) (*regexp.Regexp, error) {
	if re == "" {
		return nil, nil
	}
	r, err := regexp.Compile(re)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", flag, err)
	}
	return r, nil
}

func durationFlag(flag, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %v", flag, s, err)
	}
	return d, nil
}

// ParseDuration reads a non-negative time: a bare number is seconds; a
// number with the suffix ns, us, µs, ms or s is in that unit; a Go duration
// ("1m30s") is accepted too. The result is in ns.
func ParseDuration(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty time")
	}
	num, scale := s, 1e9
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}} {
		if strings.HasSuffix(s, u.suffix) {
			num, scale = strings.TrimSuffix(s, u.suffix), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		d, derr := time.ParseDuration(s)
		if derr != nil {
			return 0, fmt.Errorf("bad time %q (want seconds or a number with ns, us, ms or s)", s)
		}
		v, scale = float64(d), 1
	}
	ns := v * scale
	if math.IsNaN(ns) || ns < 0 || ns > math.MaxInt64/2 {
		return 0, fmt.Errorf("time %q out of range", s)
	}
	return int64(math.Round(ns)), nil
}
