package calibrate

import "github.com/servecmp/servecmp/compare"

// claim is what the conclusion of rep says: "a" or "b" (that side is
// faster), "mixed", "confounded", or "none" (no side named, nothing
// claimed).
func claim(rep *compare.Report) string {
	switch c := rep.Conclusion; c.Outcome {
	case compare.OutcomeWinner:
		return c.Winner
	case compare.OutcomeMixed:
		return "mixed"
	case compare.OutcomeConfounded:
		return "confounded"
	}
	return "none"
}
