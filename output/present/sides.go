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
		for _, d := range rep.Differences {
			if strings.HasPrefix(d.Field, "manifest.") && !strings.HasSuffix(d.Field, "detected_from") && d.A != d.B && len(d.A)+len(d.B) < 80 {
				name := d.Field[strings.LastIndex(d.Field, ".")+1:]
				a, b = join(a+",", name, d.A), join(b+",", name, d.B)
				break
			}
		}
	}
	return [2]string{label("A", a), label("B", b)}
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
