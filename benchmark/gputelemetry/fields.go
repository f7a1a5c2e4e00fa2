package gputelemetry

import (
	"fmt"
	"math/bits"
)

// field indexes one kept reading of a GPU.
type field int

const (
	fPower    field = iota // W
	fEnergy                // mJ since the driver loaded (a counter)
	fUtil                  // percent
	fSMActive              // ratio
	fFBUsed                // MiB
	fFBFree                // MiB
	fSMClock               // MHz
	fMemClock              // MHz
	fTemp                  // °C
	fEvents                // clock event (throttle) reason bit mask
	nFields
)

// fieldSpec names a field's exporter families and its valid range.
type fieldSpec struct {
	names    []string // families, in priority order
	unit     string
	max      float64 // values above are dropped (0 <= v <= max)
	integral bool    // the value must be a whole number (bit masks)
}

// maxEventMask bounds a clock event reason mask: NVML defines bits up to
// 0x100; DCGM's blank sentinels for int32 and int64 fields lie far above.
const maxEventMask = 1<<24 - 1

// maxPowerW bounds one GPU's power; a counter interval implying more is
// treated as a reset.
const maxPowerW = 10000

var fields = [nFields]fieldSpec{
	fPower:    {names: []string{"DCGM_FI_DEV_POWER_USAGE"}, unit: "W", max: maxPowerW},
	fEnergy:   {names: []string{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"}, unit: "mJ", max: 1 << 53},
	fUtil:     {names: []string{"DCGM_FI_DEV_GPU_UTIL"}, unit: "%", max: 100},
	fSMActive: {names: []string{"DCGM_FI_PROF_SM_ACTIVE"}, unit: "ratio", max: 1},
	fFBUsed:   {names: []string{"DCGM_FI_DEV_FB_USED"}, unit: "MiB", max: 1 << 24},
	fFBFree:   {names: []string{"DCGM_FI_DEV_FB_FREE"}, unit: "MiB", max: 1 << 24},
	fSMClock:  {names: []string{"DCGM_FI_DEV_SM_CLOCK"}, unit: "MHz", max: 20000},
	fMemClock: {names: []string{"DCGM_FI_DEV_MEM_CLOCK"}, unit: "MHz", max: 50000},
	fTemp:     {names: []string{"DCGM_FI_DEV_GPU_TEMP"}, unit: "°C", max: 200},
	fEvents: {names: []string{"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"},
		unit: "mask", max: maxEventMask, integral: true},
}

// valid reports whether v is a plausible reading of f.
func (f field) valid(v float64) bool {
	sp := &fields[f]
	if !(v >= 0 && v <= sp.max) { // also false for NaN
		return false
	}
	return !sp.integral || v == float64(uint64(v))
}

// Labels dcgm-exporter puts on every GPU series.
const (
	labelIndex  = "gpu"
	labelUUID   = "UUID"
	labelPCI    = "pci_bus_id"
	labelDevice = "device"
	labelModel  = "modelName"
	labelHost   = "Hostname"
	labelDriver = "DCGM_FI_DRIVER_VERSION"
)

// maxLabel bounds a label value kept from an exporter, in bytes.
const maxLabel = 128

// eventNames decodes the clock event reason bits NVML defines
// (nvmlClocksEventReason*, formerly nvmlClocksThrottleReason*).
var eventNames = []struct {
	bit      uint64
	name     string
	limiting bool // lowers clocks below what the load asks for: a confound
}{
	{0x1, "gpu_idle", false},
	{0x2, "applications_clocks_setting", false},
	{0x4, "sw_power_cap", true},
	{0x8, "hw_slowdown", true},
	{0x10, "sync_boost", false},
	{0x20, "sw_thermal_slowdown", true},
	{0x40, "hw_thermal_slowdown", true},
	{0x80, "hw_power_brake_slowdown", true},
	{0x100, "display_clock_setting", false},
}

// limitingMask holds the bits that count as throttling.
var limitingMask = func() uint64 {
	var m uint64
	for _, e := range eventNames {
		if e.limiting {
			m |= e.bit
		}
	}
	return m
}()

// DecodeEvents names the bits of a clock event reason mask, lowest bit
// first; an undefined bit is named "bit_0x…".
func DecodeEvents(mask uint64) []string {
	var out []string
	for mask != 0 {
		b := uint64(1) << bits.TrailingZeros64(mask)
		mask &^= b
		name := fmt.Sprintf("bit_%#x", b)
		for _, e := range eventNames {
			if e.bit == b {
				name = e.name
				break
			}
		}
		out = append(out, name)
	}
	return out
}

// Throttling reports whether mask holds a bit that lowers clocks below
// what the load asks for (power cap, thermal or hardware slowdown, power
// brake).
func Throttling(mask uint64) bool { return mask&limitingMask != 0 }
