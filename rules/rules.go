// Package rules defines servecmp's rule-file format, parses rule files and
// ships the default rules.
//
// A rule file is YAML:
//
//	# servecmp rules v1
//	rules:
//	  - id: fa3-fwd           # unique within the file; [a-z0-9._-]+
//	    region: attention     # attention | ffn | communication | io | other
//	    class: attn-core      # optional, a Class
//	    pattern: '^flash_fwd' # RE2, matched against kernel/memcpy/memset names
//	  - id: nvtx-qkv
//	    region: attention
//	    nvtx: '(^|[./ ])qkv_proj\b' # RE2, matched against NVTX/annotation/frame text
//
// Invariants: every Rule of a Set has exactly one of Name and NVTX; rules are
// ordered and the first match wins, separately for name rules and NVTX
// rules; a Set is immutable once built and safe for concurrent matching.
// Matching does not depend on File or Line, and neither does the Digest.
package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/servecmp/servecmp/internal/infile"
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

// ParseRegion returns the region named s (as written by String).
func ParseRegion(s string) (Region, bool) {
	for _, r := range Regions {
		if r.String() == s {
			return r, true
		}
	}
	return Other, false
}

// Rule is one entry of a rule file. Exactly one of Name and NVTX is set.
type Rule struct {
	ID     string
	Region Region
	Class  Class          // NoClass unless the rule gives one
	Name   *regexp.Regexp // matched against kernel/memcpy/memset names
	NVTX   *regexp.Regexp // matched against NVTX range, annotation and python-frame text
	File   string
	Line   int
}

// Set is an ordered list of rules; the first match wins.
type Set struct {
	Rules  []Rule
	Digest string // hash of the normalised rules, to refuse merging summaries made with different rules

	pre *prefilter // built by Parse, Prepend and Default; nil in a Set built by hand
}

// newSet builds a Set with its digest and prefilter.
func newSet(rs []Rule) *Set {
	return &Set{Rules: rs, Digest: digest(rs), pre: newPrefilter(rs)}
}

// SyntaxError is one problem found in a rule file, at a 1-based line.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Parse reads a rule file. file names it in errors. Every problem of the
// file is reported: the error is an errors.Join of *SyntaxError values, in
// line order.
func Parse(r io.Reader, file string) (*Set, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	rs, err := parseRules(data, file)
	if err != nil {
		return nil, err
	}
	return newSet(rs), nil
}

// parseRules reads the rules of a rule file, as Parse does, without
// making them a Set.
func parseRules(data []byte, file string) ([]Rule, error) {
	p := &parser{file: file}
	rs := p.parse(data)
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].Line < p.errs[j].Line })
		errs := make([]error, len(p.errs))
		for i, e := range p.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return rs, nil
}

// Load reads the rule file at path (opened read-only).
func Load(path string) (*Set, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read rules %s: %w", path, err)
	}
	return Parse(bytes.NewReader(data), path)
}

// Prepend returns a new set with front's rules ahead of s's. Neither input
// is changed.
func (s *Set) Prepend(front *Set) *Set {
	var n []Rule
	if front != nil {
		n = append(n, front.Rules...)
	}
	if s != nil {
		n = append(n, s.Rules...)
	}
	return newSet(n)
}

// MatchName returns the index in s.Rules of the first name rule matching
// name, or -1.
func (s *Set) MatchName(name string) int {
	in := s.pre.prepare(name)
	for i := range s.Rules {
		if re := s.Rules[i].Name; re != nil {
			if may, sure := s.pre.check(i, re, &in); sure || may && re.MatchString(name) {
				return i
			}
		}
	}
	return -1
}

// MatchNVTX returns the index of the first nvtx rule matching text, or -1.
func (s *Set) MatchNVTX(text string) int {
	in := s.pre.prepare(text)
	for i := range s.Rules {
		if re := s.Rules[i].NVTX; re != nil {
			if may, sure := s.pre.check(i, re, &in); sure || may && re.MatchString(text) {
				return i
			}
		}
	}
	return -1
}

// Counts returns the number of name rules and of NVTX rules.
func (s *Set) Counts() (name, nvtx int) {
	for i := range s.Rules {
		if s.Rules[i].Name != nil {
			name++
		} else if s.Rules[i].NVTX != nil {
			nvtx++
		}
	}
	return name, nvtx
}

// digest hashes what matching depends on: order, id, region, class, kind
// and pattern of every rule.
func digest(rs []Rule) string {
	h := sha256.New()
	for i := range rs {
		r := &rs[i]
		kind, pat := "name", ""
		if r.Name != nil {
			pat = r.Name.String()
		} else if r.NVTX != nil {
			kind, pat = "nvtx", r.NVTX.String()
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%q\n", r.ID, r.Region, r.Class, kind, pat)
	}
	return hex.EncodeToString(h.Sum(nil))
}

var idRE = regexp.MustCompile(`^[a-z0-9._-]+$`)

// lineRE finds the line number in a yaml.v3 error message.
var lineRE = regexp.MustCompile(`line (\d+): `)

func quoteList(xs []string) string {
	return strings.Join(xs, ", ")
}
