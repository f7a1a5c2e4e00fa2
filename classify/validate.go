package classify

// This file checks a summary read from a file before anything is derived
// from it: a saved summary is outside input like any other.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// maxSaved bounds every count and time (ns) of a saved summary: 2^56 ns
// is over two years of busy time, and sums over thousands of ranks stay
// far from overflowing int64.
const maxSaved = int64(1) << 56

// check reports the first value of a saved rank summary that no analysis
// could have written: an empty label, a reversed window, a negative or
// implausibly large count or time.
func (s *RankSummary) check() error {
	if strings.TrimSpace(s.Rank) == "" {
		return errors.New("a rank has no label")
	}
	if s.WindowEndNs < s.WindowStartNs {
		return fmt.Errorf("rank %q: window ends (%d ns) before it starts (%d ns)", s.Rank, s.WindowEndNs, s.WindowStartNs)
	}
	if err := nonNegative(map[string]int64{"window_ns": s.WindowNs, "device_work": s.DeviceWork,
		"device_work_sum_ns": s.DeviceWorkSumNs, "device_work_busy_ns": s.DeviceWorkBusyNs,
		"sum_minus_busy_ns": s.SumMinusBusyNs, "kernels": s.Kernels, "kernel_sum_ns": s.KernelSumNs,
		"kernel_busy_ns": s.KernelBusyNs, "multi_region_overlap_ns": s.MultiRegionOverlapNs,
		"comm_busy_ns": s.CommBusyNs, "non_comm_busy_ns": s.NonCommBusyNs}); err != nil {
		return fmt.Errorf("rank %q: %v", s.Rank, err)
	}
	for _, r := range s.Regions {
		if err := nonNegative(map[string]int64{"count": r.Count, "sum_ns": r.SumNs, "busy_ns": r.BusyNs}); err != nil {
			return fmt.Errorf("rank %q: region %q: %v", s.Rank, r.Region, err)
		}
	}
	for _, m := range s.Coverage.ByMethod {
		if err := nonNegative(map[string]int64{"count": m.Count, "sum_ns": m.SumNs}); err != nil {
			return fmt.Errorf("rank %q: method %q: %v", s.Rank, m.Method, err)
		}
	}
	for _, n := range s.UnmappedTop {
		if err := nonNegative(map[string]int64{"count": n.Count, "sum_ns": n.SumNs}); err != nil {
			return fmt.Errorf("rank %q: unmapped %q: %v", s.Rank, n.Name, err)
		}
	}
	for _, sh := range s.Shapes {
		if err := nonNegative(map[string]int64{"count": sh.Count, "sum_ns": sh.SumNs}); err != nil {
			return fmt.Errorf("rank %q: shape in %q: %v", s.Rank, sh.Region, err)
		}
	}
	if w := s.Work; w != nil {
		if err := nonNegative(map[string]int64{"requests": w.Requests, "output_tokens": w.OutputTokens, "input_tokens": w.InputTokens}); err != nil {
			return fmt.Errorf("rank %q: work: %v", s.Rank, err)
		}
	}
	return nil
}

// nonNegative reports the first value (by name, for a stable message)
// outside [0, maxSaved].
func nonNegative(vals map[string]int64) error {
	var bad []string
	for name, v := range vals {
		if v < 0 || v > maxSaved {
			bad = append(bad, fmt.Sprintf("%s is %d", name, v))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("%s (want 0..%d)", bad[0], maxSaved)
}
