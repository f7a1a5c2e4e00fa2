// Package checkreport is the model of servecmp's pre-flight correctness
// check (check.json): each request's two answers, how they compare, the
// summary and the quality status the user declares. The check runner
// (package check) fills it; compare reads it.
//
// Sequence evidence is, in order of strength: token ids returned by the
// engine, the tokens of returned logprobs, and the output text. A pair of
// answers is compared on the strongest evidence both carry; text equality
// is weaker (two token sequences can detokenize to the same text), and the
// report says which evidence each request used. Positions of the first
// divergence are counted in tokens for ids and logprob tokens, and in
// Unicode code points for text.
//
// Sequence consistency is not downstream quality: the report only records
// the quality status the user gives (pass, fail, not-run) so that compare
// can carry it.
package checkreport

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Evidence names what a sequence comparison rests on, strongest first.
type Evidence string

// Evidence kinds.
const (
	TokenIDs Evidence = "token_ids"
	Logprobs Evidence = "logprob_tokens"
	Text     Evidence = "text"
	None     Evidence = "none" // a side failed; nothing compared
)

func strength(e Evidence) int {
	switch e {
	case TokenIDs:
		return 3
	case Logprobs:
		return 2
	case Text:
		return 1
	}
	return 0
}

// Output is one engine's answer to one request.
type Output struct {
	OK           bool   `json:"ok"`
	Error        string `json:"error,omitempty"`
	PromptTokens int    `json:"prompt_tokens"`
	// CompletionTokens is usage.completion_tokens, or the number of token
	// ids or logprob tokens when usage is missing, -1 when unknown.
	CompletionTokens int      `json:"completion_tokens"`
	TokenIDs         []int    `json:"token_ids,omitempty"`
	LogprobTokens    []string `json:"logprob_tokens,omitempty"`
	Text             string   `json:"text"`
	FinishReason     string   `json:"finish_reason,omitempty"`
}

// Best returns the strongest evidence the output carries.
func (o *Output) Best() Evidence {
	switch {
	case !o.OK:
		return None
	case o.TokenIDs != nil:
		return TokenIDs
	case o.LogprobTokens != nil:
		return Logprobs
	}
	return Text
}

// has reports whether the output carries evidence e.
func (o *Output) has(e Evidence) bool {
	switch e {
	case TokenIDs:
		return o.TokenIDs != nil
	case Logprobs:
		return o.LogprobTokens != nil
	case Text:
		return true
	}
	return false
}

// common returns the strongest evidence both outputs carry.
func common(a, b *Output) Evidence {
	for _, e := range []Evidence{TokenIDs, Logprobs} {
		if a.has(e) && b.has(e) {
			return e
		}
	}
	return Text
}

// sequence returns the output as comparable units for evidence e.
func (o *Output) sequence(e Evidence) []string {
	switch e {
	case TokenIDs:
		s := make([]string, len(o.TokenIDs))
		for i, id := range o.TokenIDs {
			s[i] = strconv.Itoa(id)
		}
		return s
	case Logprobs:
		return o.LogprobTokens
	}
	rs := []rune(o.Text)
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return s
}

// Divergence locates the first difference between two sequences.
type Divergence struct {
	// Position is the 0-based index of the first differing unit (token or,
	// for text, code point); equal to the shorter length when one sequence
	// is a prefix of the other.
	Position int    `json:"position"`
	Unit     string `json:"unit"` // "token" or "char"
	// A and B are the continuations from Position (a few units each; text
	// is joined into one string).
	A []string `json:"a"`
	B []string `json:"b"`
}

// Result is the comparison of one request on both engines.
type Result struct {
	ID       string   `json:"id"`
	A        Output   `json:"a"`
	B        Output   `json:"b"`
	Evidence Evidence `json:"evidence"`
	// InputMatch and OutputCountMatch compare the token counts; they are
	// false when a side does not report them.
	InputMatch       bool        `json:"input_tokens_match"`
	OutputCountMatch bool        `json:"output_tokens_match"`
	SequenceMatch    bool        `json:"sequence_match"`
	Match            bool        `json:"match"` // both ok, counts and sequence equal
	Divergence       *Divergence `json:"divergence,omitempty"`
	Problems         []string    `json:"problems,omitempty"`
}

// Endpoint describes one engine under check.
type Endpoint struct {
	URL   string `json:"url"`
	Model string `json:"model"`
	// ServedModels are the models GET /v1/models listed (bounded); absent
	// when the server did not answer it.
	ServedModels []string `json:"served_models,omitempty"`
	Engine       string   `json:"engine"` // request style used
	// EvidenceSource says where the style's strongest evidence comes from.
	EvidenceSource string `json:"evidence_source,omitempty"`
}

// Summary counts the outcome.
type Summary struct {
	Requests   int `json:"requests"`
	OKBoth     int `json:"ok_both"`
	ExactMatch int `json:"exact_match"`
	Mismatched int `json:"mismatched"`
	Failed     int `json:"failed"` // failed on at least one engine
	// Evidence is the weakest evidence any compared request rested on
	// ("none" when nothing could be compared).
	Evidence       Evidence         `json:"evidence"`
	EvidenceCounts map[Evidence]int `json:"evidence_counts"`
	Passed         bool             `json:"passed"`
}

// Quality is the user-declared downstream quality status.
type Quality struct {
	Status string `json:"status"` // pass, fail or not-run
	Note   string `json:"note,omitempty"`
}

// WorkloadInfo identifies the checked requests.
type WorkloadInfo struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Count  int    `json:"count"`
}

// Report is the check's whole outcome (check.json).
type Report struct {
	Schema   string       `json:"schema"`
	A        Endpoint     `json:"a"`
	B        Endpoint     `json:"b"`
	Workload WorkloadInfo `json:"workload"`
	Seed     int64        `json:"seed"`
	Summary  Summary      `json:"summary"`
	Quality  Quality      `json:"quality"`
	Notes    []string     `json:"notes"`
	Requests []Result     `json:"requests"`
	// Incomplete is true when the check was interrupted: Requests holds
	// the requests compared before the interrupt, and Passed is false.
	Incomplete bool `json:"incomplete,omitempty"`
	// StartedAt and EndedAt bound the check on the wall clock (UTC);
	// absent in reports of PreviousSchema.
	StartedAt time.Time `json:"started_at,omitzero"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
}

// Schema names the check report format.
//
// Version 2 adds started_at and ended_at. Readers accept version 1
// (PreviousSchema).
const Schema = "servecmp.check/2"

// PreviousSchema is the check report format before Schema.
const PreviousSchema = "servecmp.check/1"

// KnownSchema reports whether s names a check report format this version
// reads.
func KnownSchema(s string) bool { return s == Schema || s == PreviousSchema }

// ContextUnits is how many units of each continuation a divergence shows.
const ContextUnits = 8

// Compare compares one request's two outputs.
func Compare(id string, a, b Output) Result {
	r := Result{ID: id, A: a, B: b, Evidence: None}
	if !a.OK {
		r.Problems = append(r.Problems, "A failed: "+a.Error)
	}
	if !b.OK {
		r.Problems = append(r.Problems, "B failed: "+b.Error)
	}
	if !a.OK || !b.OK {
		return r
	}
	r.InputMatch = a.PromptTokens > 0 && a.PromptTokens == b.PromptTokens
	if !r.InputMatch {
		r.Problems = append(r.Problems, fmt.Sprintf("input tokens differ: A %s, B %s", count(a.PromptTokens), count(b.PromptTokens)))
	}
	r.OutputCountMatch = a.CompletionTokens >= 0 && a.CompletionTokens == b.CompletionTokens
	if !r.OutputCountMatch {
		r.Problems = append(r.Problems, fmt.Sprintf("output tokens differ: A %s, B %s", count(a.CompletionTokens), count(b.CompletionTokens)))
	}
	e := common(&a, &b)
	r.Evidence = e
	sa, sb := a.sequence(e), b.sequence(e)
	if d := firstDivergence(sa, sb); d >= 0 {
		unit := "token"
		if e == Text {
			unit = "char"
		}
		dv := &Divergence{Position: d, Unit: unit, A: window(sa, d, e), B: window(sb, d, e)}
		r.Divergence = dv
		r.Problems = append(r.Problems, fmt.Sprintf("sequences diverge at %s %d", unit, d))
	} else {
		r.SequenceMatch = true
	}
	r.Match = r.InputMatch && r.OutputCountMatch && r.SequenceMatch
	return r
}

func count(n int) string {
	if n < 0 {
		return "unknown"
	}
	return strconv.Itoa(n)
}

// firstDivergence returns the first index where a and b differ, or -1 when
// they are equal.
func firstDivergence(a, b []string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// window returns up to ContextUnits units from d (text: ContextUnits*4
// code points joined into one string).
func window(s []string, d int, e Evidence) []string {
	if e == Text {
		end := min(len(s), d+ContextUnits*4)
		out := ""
		for _, c := range s[d:end] {
			out += c
		}
		return []string{out}
	}
	end := min(len(s), d+ContextUnits)
	return append([]string{}, s[d:end]...)
}

// NewSummary is the report's summary of its results.
func NewSummary(results []Result) Summary {
	s := Summary{Requests: len(results), EvidenceCounts: map[Evidence]int{}, Evidence: None}
	weakest := 0
	for _, r := range results {
		if r.A.OK && r.B.OK {
			s.OKBoth++
			s.EvidenceCounts[r.Evidence]++
			if st := strength(r.Evidence); weakest == 0 || st < weakest {
				weakest, s.Evidence = st, r.Evidence
			}
		} else {
			s.Failed++
		}
		if r.Match {
			s.ExactMatch++
		} else if r.A.OK && r.B.OK {
			s.Mismatched++
		}
	}
	s.Passed = s.Requests > 0 && s.ExactMatch == s.Requests
	return s
}

// QualityStatuses are the values Quality.Status may take.
var QualityStatuses = []string{"pass", "fail", "not-run"}

// Validate checks the quality status.
func (q Quality) Validate() error {
	if !slices.Contains(QualityStatuses, q.Status) {
		return fmt.Errorf("quality %q: want %s", q.Status, strings.Join(QualityStatuses, ", "))
	}
	return nil
}

// JSON is the report as indented JSON with a final newline, as written
// to a report file.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	return append(b, '\n'), err
}

// ModelsDiffer says, in a sentence for the report's notes, how the
// models of a and b differ: the model each was asked for, and the models
// each serves when known. It is "" when both asked for the same model.
func ModelsDiffer(a, b Endpoint) string {
	if a.Model == b.Model {
		return ""
	}
	serves := func(e Endpoint) string {
		if len(e.ServedModels) == 0 {
			return ""
		}
		return " (serves " + strings.Join(e.ServedModels, ", ") + ")"
	}
	return fmt.Sprintf("A and B run different models: A %q%s, B %q%s; the check compares their outputs all the same, and compare calls the runs NOT COMPARABLE unless the difference is declared (--intentional model)",
		a.Model, serves(a), b.Model, serves(b))
}
