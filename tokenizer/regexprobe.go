package tokenizer

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// Load probes every pattern that runs on a regex engine (not the hand
// scanners, which are linear) with texts that make backtracking patterns
// blow up: long runs of one character class and of alternating pairs,
// and real prose. A pattern whose find exceeds the bounds on a probe, or
// whose probes take longer than probeBudget on regexp2, is refused with
// the file: a tokenizer that cannot split such text would give wrong ids.

// probeSize is the length of each probe text; probeBudget bounds the time
// regexp2 may spend on all the probes of one pattern.
const (
	probeSize   = 4096
	probeBudget = 2 * time.Second
)

// probeText is a probe and how an error names it.
type probeText struct{ name, text string }

var probeTexts = sync.OnceValue(func() []probeText {
	units := []string{"a", "A", "1", " ", "\n", "\t", ".", "'", "中", "é", "\u0301", "\u00a0",
		"a ", "a1", "1 ", " \n", "a.", "'s", "aA", "a'", ". ", "a\n", "  a"}
	var out []probeText
	for _, u := range units {
		out = append(out, probeText{fmt.Sprintf("%q repeated", u), strings.Repeat(u, probeSize/len(u))})
	}
	return append(out, probeText{"prose", publicDomainText[:min(probeSize, len(publicDomainText))]})
})

// probeMatcher runs m on the probe texts; regexp2 gets them with a time
// budget instead of its per-match bound.
func probeMatcher(m failingMatcher) error {
	var probe *regexp2.Regexp
	deadline := time.Now().Add(probeBudget)
	for _, p := range probeTexts() {
		if e, ok := m.(engineMatcher); ok {
			if _, ok := reMatch(e.root, p.text, nil); ok {
				continue
			}
		}
		if probe == nil {
			var err error
			probe, err = regexp2.Compile(onigToNET(m.pattern()), regexp2.Multiline, regexp2.OptionMaxBacktrackingStackSize(maxRegexStack))
			if err != nil {
				return fmt.Errorf("pre-tokenizer pattern %q: %v", m.pattern(), oneLineErr(err))
			}
		}
		probe.MatchTimeout = max(time.Until(deadline), time.Millisecond)
		if _, err := probe.FindAllStringIndex(p.text, -1); err != nil {
			return fmt.Errorf("pre-tokenizer pattern %q exceeds the regex bounds on a probe text (%d bytes, %s): "+
				"backtracking stack of %d slots, or %v for all its probes; the file cannot be tokenized reliably",
				m.pattern(), len(p.text), p.name, maxRegexStack, probeBudget)
		}
	}
	return nil
}
