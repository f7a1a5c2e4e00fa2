package rules

import "strconv"

// Class is what a rule says a kernel is, besides its region, for context
// attribution. It is parsed once from a rule's "class" key; NoClass means
// the rule gives none. Classes fall in two groups:
//
//   - ambiguous (gemm, norm, quant, splitk, workspace, gather, copy,
//     elementwise): the kernel's region cannot be told from its name; a
//     name rule of this class keeps its own region under name-only
//     classification, and context attribution may move it;
//   - anchors (attn-core, comm, act, moe, embed, sample): unambiguous
//     work characteristic of a layer's structure.
type Class uint8

// Rule classes, in the order error messages list them.
const (
	NoClass Class = iota
	Gemm
	Norm
	Quant
	SplitK
	Workspace
	Gather
	Copy
	AttnCore
	Comm
	Act
	MoE
	Embed
	Sample
	Elementwise
	numClasses
)

// classNames are the spellings of rule files, by Class.
var classNames = [numClasses]string{"", "gemm", "norm", "quant", "splitk", "workspace", "gather", "copy",
	"attn-core", "comm", "act", "moe", "embed", "sample", "elementwise"}

// String returns the class as a rule file spells it ("" for NoClass).
func (c Class) String() string {
	if c >= numClasses {
		return "class(" + strconv.Itoa(int(c)) + ")"
	}
	return classNames[c]
}

// Ambiguous reports whether c names work whose region cannot be told from
// its name.
func (c Class) Ambiguous() bool { return c >= Gemm && c <= Copy || c == Elementwise }

// Anchor reports whether c marks unambiguous work characteristic of a
// layer's structure (attention core, collectives, activation, MoE,
// embedding, sampling).
func (c Class) Anchor() bool { return c >= AttnCore && c <= Sample }

// ParseClass returns the class spelled s; NoClass and false when s names
// none.
func ParseClass(s string) (Class, bool) {
	for c := Gemm; c < numClasses; c++ {
		if classNames[c] == s {
			return c, true
		}
	}
	return NoClass, false
}

// ClassNames returns the spellings of every class, in Class order.
func ClassNames() []string { return append([]string(nil), classNames[Gemm:]...) }
