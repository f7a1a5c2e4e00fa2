package kineto

import (
	"errors"
	"math"
	"math/big"

	"github.com/servecmp/servecmp/event"
)

// errBadTime reports a timestamp or duration that is not a finite decimal
// number, or whose nanosecond value does not fit in an int64.
var errBadTime = errors.New("timestamp is not a usable number")

// interval converts a Chrome-trace (ts, dur) pair, both decimal texts in
// microseconds, to nanoseconds: start = round(ts×1000) and
// end = round((ts+dur)×1000), each rounded half away from zero and computed on
// the decimal digits exactly as written (no float64 on the way). An empty dur
// counts as zero.
func interval[T string | []byte](ts, dur T) (start, end int64, err error) {
	a, okA := parseMicros(ts)
	b, okB := micros{}, true
	if len(dur) > 0 {
		b, okB = parseMicros(dur)
	}
	if okA && okB {
		return a.ns(), a.add(b).ns(), nil
	}
	d := string(dur)
	if d == "" {
		d = "0"
	}
	return intervalExact(string(ts), d)
}

// micros is a non-negative decimal number of microseconds split into whole
// microseconds and a fraction counted in units of 1e-9 µs (1e-6 ns).
type micros struct {
	whole, frac int64
}

const (
	fracDigits = 9             // decimal places micros keeps exactly
	fracUnit   = 1_000_000_000 // frac units per µs
	fracPerNs  = fracUnit / 1000
	maxWhole   = 15 // integer digits accepted on the fast path; 10^15 µs × 1000 fits an int64
)

// parseMicros reads a plain non-negative decimal ("123", "123.456") with at
// most maxWhole integer digits and fracDigits decimals. Anything else (sign,
// exponent, more digits) reports false and is left to intervalExact.
func parseMicros[T string | []byte](s T) (micros, bool) {
	var m micros
	i, n := 0, len(s)
	if n == 0 {
		return m, false
	}
	for ; i < n && s[i] >= '0' && s[i] <= '9'; i++ {
		if i >= maxWhole {
			return m, false
		}
		m.whole = m.whole*10 + int64(s[i]-'0')
	}
	if i == 0 {
		return m, false
	}
	if i == n {
		return m, true
	}
	if s[i] != '.' || i+1 == n {
		return m, false
	}
	i++
	digits := 0
	for ; i < n; i++ {
		c := s[i]
		if c < '0' || c > '9' || digits == fracDigits {
			return m, false
		}
		m.frac = m.frac*10 + int64(c-'0')
		digits++
	}
	for ; digits < fracDigits; digits++ {
		m.frac *= 10
	}
	return m, true
}

func (m micros) add(o micros) micros {
	r := micros{whole: m.whole + o.whole, frac: m.frac + o.frac}
	if r.frac >= fracUnit {
		r.whole++
		r.frac -= fracUnit
	}
	return r
}

// ns rounds m×1000 to whole nanoseconds, halves up (m is never negative).
func (m micros) ns() int64 {
	v := m.whole*1000 + m.frac/fracPerNs
	if m.frac%fracPerNs >= fracPerNs/2 {
		v++
	}
	return v
}

// intervalExact is the slow path of interval for signed numbers, exponents
// and long fractions: rational arithmetic on the decimal values.
func intervalExact(ts, dur string) (start, end int64, err error) {
	a, ok := new(big.Rat).SetString(ts)
	if !ok || !plainNumber(ts) {
		return 0, 0, errBadTime
	}
	b, ok := new(big.Rat).SetString(dur)
	if !ok || !plainNumber(dur) {
		return 0, 0, errBadTime
	}
	thousand := big.NewRat(1000, 1)
	s := new(big.Rat).Mul(a, thousand)
	e := new(big.Rat).Mul(new(big.Rat).Add(a, b), thousand)
	start, ok1 := roundRat(s)
	end, ok2 := roundRat(e)
	if !ok1 || !ok2 {
		return 0, 0, errBadTime
	}
	return start, end, nil
}

// plainNumber rejects the forms big.Rat accepts but JSON does not
// ("1/3", hexadecimal, "Inf") and keeps the slow path cheap: at most 64
// characters and an exponent of at most two digits.
func plainNumber(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	expDigits := -1 // -1: no exponent seen yet
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if expDigits >= 0 {
				expDigits++
				if expDigits > 2 {
					return false
				}
			}
		case c == '.', c == '-', c == '+':
		case c == 'e', c == 'E':
			if expDigits >= 0 {
				return false
			}
			expDigits = 0
		default:
			return false
		}
	}
	return true
}

// roundRat rounds r half away from zero and reports whether the result fits
// in an int64.
func roundRat(r *big.Rat) (int64, bool) {
	num := new(big.Int).Abs(r.Num())
	den := r.Denom()
	// floor((2|n| + d) / 2d) = round half up of |n|/d
	q := new(big.Int).Lsh(num, 1)
	q.Add(q, den)
	q.Quo(q, new(big.Int).Lsh(den, 1))
	if r.Sign() < 0 {
		q.Neg(q)
	}
	if !q.IsInt64() || q.Int64() == math.MinInt64 {
		return 0, false
	}
	return q.Int64(), true
}

// timesInRange reports whether an event's interval may enter the event
// model: device work must pass event.TimesOK; host events may start
// before 0 (a clock origin of the trace's own) but stay within
// ±event.MaxTime.
func timesInRange(work bool, start, end int64) bool {
	if work {
		return event.TimesOK(start, end)
	}
	return event.HostTimesOK(start, end)
}
