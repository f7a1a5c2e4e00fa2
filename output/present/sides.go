package present

import (
	"strings"

	"github.com/servecmp/servecmp/compare"
)

// SideLabels name the two systems of a comparison for legends and axes,
// A's first: "A: vllm demo-model", "B: sglang demo-model". When engine
// and model are the same on both sides, the first manifest field that
// differs (an intentional difference, say the slot count) tells them
// apart: "A: llamacpp tiny.gguf, llamacpp_slots 1".
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
		if d, ok := telling(rep.Differences); ok {
			name := d.Field[strings.LastIndex(d.Field, ".")+1:]
			a, b = join(a+",", name, d.A), join(b+",", name, d.B)
		}
	}
	return [2]string{label("A", a), label("B", b)}
}

// telling picks the manifest difference that best tells two systems of
// one engine and model apart: a declared (intentional) one before any
// other, then the one with the shortest field name (llamacpp_slots
// before context_per_slot); values too long for a legend (a command
// line) and how the engine was detected are passed over.
func telling(ds []compare.Difference) (compare.Difference, bool) {
	var best compare.Difference
	found := false
	for _, d := range ds {
		if !strings.HasPrefix(d.Field, "manifest.") || strings.HasSuffix(d.Field, "detected_from") || d.A == d.B || len(d.A)+len(d.B) >= 60 {
			continue
		}
		if !found || d.Intentional && !best.Intentional || d.Intentional == best.Intentional && len(d.Field) < len(best.Field) {
			best, found = d, true
		}
	}
	return best, found
}

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
