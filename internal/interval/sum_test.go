package interval

// Sum returns the summed lengths of ivs, counting overlaps as often as they
// occur.
func Sum(ivs []Interval) int64 {
	var n int64
	for _, iv := range ivs {
		n += iv.Len()
	}
	return n
}
