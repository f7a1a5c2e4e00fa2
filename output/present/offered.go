package present

import "github.com/servecmp/servecmp/compare"

// OfferedLoadLabel names a sweep's offered-load axis with its unit.
func OfferedLoadLabel(curves []compare.SweepCurve) string {
	kind := curves[0].Kind
	for _, c := range curves {
		if c.Kind != kind {
			return "offered load (concurrency, or rate in requests/s)"
		}
	}
	switch kind {
	case "concurrency":
		return "offered concurrency (requests in flight)"
	case "rate":
		return "offered rate (requests/s)"
	}
	return "offered " + kind
}
