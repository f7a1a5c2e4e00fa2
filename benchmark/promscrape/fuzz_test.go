package promscrape

import (
	"testing"
)

// FuzzFamilies: any page parses or is refused without a panic, and a page
// over the series bound is refused before it is parsed.
func FuzzFamilies(f *testing.F) {
	for _, s := range []string{"a 1\n", "# TYPE a gauge\na{l=\"x\"} NaN\n", "a{ 1\n", "x 1\nx 2\nx 3\n", "\xff 1\n", "# TYPE a histogram\na_bucket{le=\"+Inf\"} 1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		const bound = 2
		fams, err := Families(page, bound)
		if CheckSeries(page, bound) != nil && err == nil {
			t.Fatal("a page over the series bound parsed")
		}
		for _, mf := range fams {
			for _, m := range mf.GetMetric() {
				Value(mf.GetType(), m)
			}
		}
	})
}
