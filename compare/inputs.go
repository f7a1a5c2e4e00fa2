package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// This file checks the method's first rule where it can break without a
// trace in the manifests: the same materialised requests must reach both
// engines as the same model inputs. One workload, sent as the same text,
// can still become different token sequences when an engine adds to it
// on the server side (Ollama wraps a completions prompt in the model's
// chat template). The prompt tokens each side's usage reports per
// request tell.

// InputsField is the name under which differing inputs appear among the
// differences and in NotComparable, and which --intentional declares
// (also as "prompt_tokens" or the group "inputs").
const InputsField = "inputs.prompt_tokens"

// Inputs is the comparison of the prompt tokens the two engines reported
// for the same requests.
type Inputs struct {
	// Source is "records" (per request, from the records given) or
	// "summary" (per-request means from the results' input tokens, when
	// no records map onto the runs).
	Source string `json:"source"`
	// Requests counts the requests compared (records: those with usage
	// on both sides); Differ those whose counts differ by more than one
	// token (one BOS more or less is common and harmless).
	Requests int `json:"requests"`
	Differ   int `json:"differ"`
	// MeanA and MeanB are the mean prompt tokens per request; Diff is the
	// typical difference B−A per request (records: the median of the
	// per-request differences; summary: MeanB − MeanA).
	MeanA float64 `json:"mean_a"`
	MeanB float64 `json:"mean_b"`
	Diff  float64 `json:"diff"`
	// Differs is set when the inputs differ beyond one BOS: |Diff| > 1,
	// or more than MaxDiffering of the requests differ.
	Differs bool `json:"differs"`
	// Cause names the likely cause when Differs; Intentional is set when
	// the difference was declared.
	Cause       string `json:"cause,omitempty"`
	Intentional bool   `json:"intentional,omitempty"`
}

// MaxDiffering is how many requests may differ by more than one token
// (a share of those compared, at least 2) before the inputs differ.
func MaxDiffering(n int) int { return max(2, n/20) }

// inputs compares the prompt tokens of the two sides and, when they
// differ beyond one BOS and the difference is not declared, makes the
// comparison not comparable. Sides whose workloads differ are left to
// the workload's own difference.
func (r *Report) inputs(runsA, runsB []Run, in Input) {
	if r.Workload.SHA256A != r.Workload.SHA256B {
		return
	}
	x := inputsFromRecords(in.RecordsA, in.RecordsB)
	if x == nil {
		x = inputsFromSummaries(runsA, runsB)
	}
	if x == nil {
		return
	}
	r.Inputs = x
	if !x.Differs {
		return
	}
	x.Cause = inputsCause(x, runsA, runsB)
	x.Intentional = intentional(InputsField, in.Intentional)
	d := Difference{Field: InputsField, A: fmt.Sprintf("%.1f per request", x.MeanA), B: fmt.Sprintf("%.1f per request", x.MeanB),
		Intentional: x.Intentional, Critical: true}
	r.Differences = append(r.Differences, d)
	if !d.Intentional {
		r.Comparable = false
		r.NotComparable = append(r.NotComparable, InputsField)
	}
}

// promptTokensByID gives each request id's prompt tokens as its engine
// reported them (usage; the median over the runs that have it).
func promptTokensByID(files []Records) map[string]float64 {
	all := map[string][]int{}
	for _, f := range files {
		for i := range f.Records {
			rec := &f.Records[i]
			if rec.OK && rec.UsageReported && rec.PromptTokens > 0 {
				all[rec.ID] = append(all[rec.ID], rec.PromptTokens)
			}
		}
	}
	out := make(map[string]float64, len(all))
	for id, v := range all {
		out[id] = medianInts(v)
	}
	return out
}

// inputsFromRecords compares per request id; nil when no request has
// usage on both sides.
func inputsFromRecords(a, b []Records) *Inputs {
	pa, pb := promptTokensByID(a), promptTokensByID(b)
	var diffs []float64
	x := &Inputs{Source: "records"}
	for id, va := range pa {
		vb, ok := pb[id]
		if !ok {
			continue
		}
		d := vb - va
		diffs = append(diffs, d)
		x.MeanA += va
		x.MeanB += vb
		if math.Abs(d) > 1 {
			x.Differ++
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	x.Requests = len(diffs)
	x.MeanA /= float64(x.Requests)
	x.MeanB /= float64(x.Requests)
	slices.Sort(diffs)
	x.Diff = medianSorted(diffs)
	x.Differs = math.Abs(x.Diff) > 1 || x.Differ > MaxDiffering(x.Requests)
	return x
}

// inputsFromSummaries compares the per-request mean of the input tokens
// the engines reported; nil when a side has no run whose every
// successful request carried usage with its input tokens.
func inputsFromSummaries(runsA, runsB []Run) *Inputs {
	mean := func(runs []Run) (float64, bool) {
		var tokens, n float64
		for _, run := range runs {
			s := run.Result.Summary
			if s.RequestsOK > 0 && s.UsageMissing == 0 && s.InputTokensUnknown == 0 && s.InputTokens > 0 {
				tokens += float64(s.InputTokens)
				n += float64(s.RequestsOK)
			}
		}
		return tokens / n, n > 0
	}
	ma, okA := mean(runsA)
	mb, okB := mean(runsB)
	if !okA || !okB {
		return nil
	}
	x := &Inputs{Source: "summary", MeanA: ma, MeanB: mb, Diff: mb - ma}
	x.Differs = math.Abs(x.Diff) > 1
	return x
}

// inputsCause names the likely cause of differing inputs: the side whose
// prompts are longer adds tokens on the server, most often a chat
// template; Ollama's detection says so outright (ollama_template).
func inputsCause(x *Inputs, runsA, runsB []Run) string {
	side, runs := "B", runsB
	if x.Diff < 0 {
		side, runs = "A", runsA
	}
	for _, run := range runs {
		if run.Result.Manifest.Extra["ollama_template"] == "wrapped" {
			return fmt.Sprintf("engine %s (%s) wraps every completions prompt in the model's chat template on the server "+
				"(manifest extra ollama_template=wrapped); a model whose template is {{ .Prompt }} sends it as it is", side, run.Result.Manifest.Engine)
		}
	}
	return "likely a chat template or special tokens that engine " + side + " adds to the prompts on the server side"
}

// InputsSentence says in one line how the inputs differed, or "" when
// they did not.
func (x *Inputs) Sentence() string {
	if x == nil || !x.Differs {
		return ""
	}
	var how string
	if x.Source == "records" {
		how = fmt.Sprintf("B−A %+g prompt tokens per request (median over %d requests; %d differ by more than one), %.1f vs %.1f on average",
			x.Diff, x.Requests, x.Differ, x.MeanA, x.MeanB)
	} else {
		how = fmt.Sprintf("%.1f vs %.1f prompt tokens per request on average (from the results: no records)", x.MeanA, x.MeanB)
	}
	var verdict string
	if x.Intentional {
		verdict = "declared intentional"
	} else {
		verdict = "not declared (--intentional " + InputsField + ")"
	}
	return strings.Join([]string{"the engines saw different inputs for the same workload: " + how, x.Cause, verdict}, "; ")
}

func medianInts(v []int) float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	slices.Sort(f)
	return medianSorted(f)
}

func medianSorted(x []float64) float64 {
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// inputsFieldKnown reports whether an --intentional declaration names
// the inputs.
func inputsFieldKnown(decl string) bool { return intentional(InputsField, []string{decl}) }
