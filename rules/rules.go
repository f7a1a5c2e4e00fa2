// Package rules defines servecmp's rule-file format and ships the default
// rules. (Interface sketch: the rules owner replaces the bodies.)
package rules

import (
	"io"
	"regexp"
)

// Region is one of the five broad regions of device work.
type Region uint8

// The regions, in report order.
const (
	Attention Region = iota
	FFN
	Communication
	IO
	Other
	NumRegions = 5
)

// Regions lists every region in report order.
var Regions = [NumRegions]Region{Attention, FFN, Communication, IO, Other}

// String returns the region's rule-file name: attention, ffn, communication, io, other.
func (r Region) String() string {
	switch r {
	case Attention:
		return "attention"
	case FFN:
		return "ffn"
	case Communication:
		return "communication"
	case IO:
		return "io"
	}
	return "other"
}

// Classes a rule may give a kernel besides its region, for context
// attribution: an ambiguous class (gemm, norm, quant, splitk, workspace,
// gather, copy) may be re-homed by position; an anchor class (attn-core,
// comm, act, moe, embed, sample) marks the structure of a layer.
var Classes = []string{"gemm", "norm", "quant", "splitk", "workspace", "gather", "copy",
	"attn-core", "comm", "act", "moe", "embed", "sample"}

// Rule is one entry of a rule file. Exactly one of Name and NVTX is set.
type Rule struct {
	ID     string
	Region Region
	Class  string         // "" or one of Classes
	Name   *regexp.Regexp // matched against kernel/memcpy/memset names
	NVTX   *regexp.Regexp // matched against NVTX range, annotation and python-frame text
	File   string
	Line   int
}

// Set is an ordered list of rules; the first match wins.
type Set struct {
	Rules  []Rule
	Digest string // hash of the normalised rules, to refuse merging summaries made with different rules
}

// Parse reads a rule file. Errors carry file:line.
func Parse(r io.Reader, file string) (*Set, error) { panic("rules.Parse: not yet implemented") }

// Load reads the rule file at path.
func Load(path string) (*Set, error) { panic("rules.Load: not yet implemented") }

// Default returns the embedded default rules.
func Default() *Set { panic("rules.Default: not yet implemented") }

// Prepend returns a new set with front's rules ahead of s's.
func (s *Set) Prepend(front *Set) *Set { panic("not yet implemented") }

// MatchName returns the index in s.Rules of the first name rule matching
// name, or -1.
func (s *Set) MatchName(name string) int { panic("not yet implemented") }

// MatchNVTX returns the index of the first nvtx rule matching text, or -1.
func (s *Set) MatchNVTX(text string) int { panic("not yet implemented") }
