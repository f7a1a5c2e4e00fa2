package present

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/check/checkreport"
)

// WriteCheckText writes the human report of a correctness check: the
// verdict, both endpoints, the evidence used and every request that did
// not match with its first divergence.
func WriteCheckText(w io.Writer, r *checkreport.Report) {
	s := r.Summary
	verdict := "PASSED"
	if !s.Passed {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "check %s: %d/%d requests match exactly (%d failed, %d mismatched)\n", verdict, s.ExactMatch, s.Requests, s.Failed, s.Mismatched)
	for i, e := range []checkreport.Endpoint{r.A, r.B} {
		serves := ""
		if len(e.ServedModels) > 0 {
			serves = "; serves " + strings.Join(e.ServedModels, ", ")
		}
		fmt.Fprintf(w, "%s: %s model %s (%s%s)\n", "AB"[i:i+1], e.URL, cmp.Or(e.Model, "-"), e.Engine, serves)
	}
	fmt.Fprintf(w, "workload: %s sha256 %s, seed %d, temperature 0\n", r.Workload.Path, r.Workload.SHA256, r.Seed)
	var ev []string
	for _, k := range []checkreport.Evidence{checkreport.TokenIDs, checkreport.Logprobs, checkreport.Text} {
		if n := s.EvidenceCounts[k]; n > 0 {
			ev = append(ev, fmt.Sprintf("%s %d", k, n))
		}
	}
	fmt.Fprintf(w, "evidence: weakest %s (%s)\n", s.Evidence, strings.Join(ev, ", "))
	for _, e := range []checkreport.Endpoint{r.A, r.B} {
		if e.EvidenceSource != "" {
			fmt.Fprintf(w, "evidence offered by %s (%s): %s\n", e.URL, e.Engine, e.EvidenceSource)
		}
	}
	if s.EvidenceCounts[checkreport.Text] > 0 {
		fmt.Fprintf(w, "note: %d request(s) were compared by text, which is weaker evidence than token ids: equal text does not prove equal tokens\n", s.EvidenceCounts[checkreport.Text])
	}
	q := "quality: " + r.Quality.Status
	if r.Quality.Note != "" {
		q += " (" + r.Quality.Note + ")"
	}
	fmt.Fprintln(w, q)
	for _, rr := range r.Requests {
		if rr.Match {
			continue
		}
		fmt.Fprintf(w, "request %s: %s\n", rr.ID, strings.Join(rr.Problems, "; "))
		if d := rr.Divergence; d != nil {
			fmt.Fprintf(w, "  first divergence at %s %d: A %s | B %s\n", d.Unit, d.Position, quoteUnits(d.A), quoteUnits(d.B))
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

func quoteUnits(u []string) string {
	q := make([]string, len(u))
	for i, s := range u {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, " ") + "]"
}
