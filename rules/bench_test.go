package rules

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func corpusNames(tb testing.TB) []string {
	data, err := os.ReadFile(filepath.Join("testdata", "kernel-names.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) > 1 && f[0] != "name" {
			out = append(out, f[0])
		}
	}
	return out
}

// BenchmarkMatchName matches every corpus name once per iteration, with
// and without the literal prefilter.
func BenchmarkMatchName(b *testing.B) {
	names := corpusNames(b)
	for _, mode := range []string{"prefilter", "regexp-only"} {
		b.Run(mode, func(b *testing.B) {
			s := Default()
			if mode == "regexp-only" {
				s.pre = nil
			}
			for range b.N {
				for _, n := range names {
					s.MatchName(n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(names)), "ns/name")
		})
	}
}
