package present

import (
	"regexp"
	"strings"

	"github.com/servecmp/servecmp/compare"
)

// SideLabels name the two systems of a comparison for legends and axes,
// A's first: "A: vllm demo-model", "B: sglang demo-model". When engine
// and model are the same on both sides, the manifest field that differs
// tells them apart (an intentional difference first, say the slot
// count): "A: llamacpp tiny.gguf, llamacpp_slots 1"; or the options
// their launch commands differ by: "A: vllm m, --max-running 4".
func SideLabels(rep *compare.Report) [2]string {
	get := func(name string) (string, string) {
		for _, f := range rep.Contract {
			if f.Name == name {
				return f.A, f.B
			}
		}
		return "", ""
	}
	ea, eb := get("engine")
	ma, mb := get("model")
	a, b := join(ea, ma), join(eb, mb)
	if a == b {
		if name, va, vb, ok := telling(rep.Differences); ok {
			a, b = join(a+",", name, va), join(b+",", name, vb)
		}
	}
	return [2]string{label("A", a), label("B", b)}
}

// legendWidth bounds the two values a legend shows, together.
const legendWidth = 60

// telling picks the manifest difference that best tells two systems of
// one engine and model apart, as a name and the two values to show: a
// declared (intentional) one before any other, then one with short
// values before a command line, then the shortest field name
// (llamacpp_slots before context_per_slot). A command line too long for
// a legend shows the options that differ ("--max-running 4" against
// "--max-running 16"), ports and addresses left out; how the engine was
// detected is passed over.
func telling(ds []compare.Difference) (name, a, b string, ok bool) {
	var best compare.Difference
	bestShort := false
	for _, d := range ds {
		if !strings.HasPrefix(d.Field, "manifest.") || strings.HasSuffix(d.Field, "detected_from") || d.A == d.B {
			continue
		}
		short := len(d.A)+len(d.B) < legendWidth
		if !short {
			if _, _, ok := argsDiff(d.A, d.B); !ok {
				continue
			}
		}
		if !ok || better(d, short, best, bestShort) {
			best, bestShort, ok = d, short, true
		}
	}
	if !ok {
		return "", "", "", false
	}
	if bestShort {
		return best.Field[strings.LastIndex(best.Field, ".")+1:], best.A, best.B, true
	}
	a, b, _ = argsDiff(best.A, best.B)
	return "", a, b, true
}

// better says whether difference d (short: its values fit a legend)
// tells the sides apart better than cur.
func better(d compare.Difference, short bool, cur compare.Difference, curShort bool) bool {
	switch {
	case d.Intentional != cur.Intentional:
		return d.Intentional
	case short != curShort:
		return short
	}
	return len(d.Field) < len(cur.Field)
}

// argsDiff is what differs between two command lines of as many words:
// each differing word with the option before it, options naming a port,
// address, host or file of logs left out (they differ whenever two
// engines share a machine). ok is false when the lines differ in length,
// only in those options, or by more than a legend holds.
func argsDiff(a, b string) (da, db string, ok bool) {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) != len(wb) {
		return "", "", false
	}
	var pa, pb []string
	for i := range wa {
		if wa[i] == wb[i] {
			continue
		}
		opt := ""
		if i > 0 && strings.HasPrefix(wa[i-1], "-") && wa[i-1] == wb[i-1] {
			opt = wa[i-1]
		}
		if place.MatchString(opt) || hostPort.MatchString(wa[i]) || hostPort.MatchString(wb[i]) {
			continue
		}
		pa, pb = append(pa, join(opt, wa[i])), append(pb, join(opt, wb[i]))
	}
	da, db = strings.Join(pa, " "), strings.Join(pb, " ")
	if da == "" || len(da)+len(db) >= legendWidth {
		return "", "", false
	}
	return da, db, true
}

var (
	// place matches options that say where an engine listens or logs.
	place = regexp.MustCompile(`(?i)port|addr|host|url|log|socket`)
	// hostPort matches an address with a port, or a URL.
	hostPort = regexp.MustCompile(`^([a-z]+://|[\w.\[\]:-]*:[0-9]+$)`)
)

func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" && p != "," {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

func label(side, what string) string {
	if what == "" {
		return side
	}
	return side + ": " + what
}
