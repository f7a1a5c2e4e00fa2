package calibrate

import "github.com/servecmp/servecmp/compare"

// claim is what the headline of rep says: "a" or "b" (that side is
// faster), "mixed", "confounded", or "none" (no side named, nothing
// claimed).
func claim(rep *compare.Report) string {
	h := rep.Headline
	switch {
	case h == nil:
		return "none"
	case h.Outcome == compare.HeadlineWinner:
		return h.Winner
	case h.Outcome == compare.HeadlineMixed:
		return "mixed"
	case h.Outcome == compare.HeadlineConfounded:
		return "confounded"
	}
	return "none"
}
