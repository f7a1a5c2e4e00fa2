package compare

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// inputsSides builds two runs a side, 200 requests each with the same
// ids on both sides; prompt(side, i) is request i's prompt tokens.
func inputsSides(prompt func(side string, i int) int) (a, b []Run, ra, rb []Records) {
	a, ra = mkSide("a", 1, 2, 100, 20, []float64{1000, 1010})
	b, rb = mkSide("b", 2, 2, 100, 20, []float64{1000, 1010})
	for _, s := range []struct {
		side string
		runs []Run
		recs []Records
	}{{"a", a, ra}, {"b", b, rb}} {
		for k := range s.recs {
			var total int64
			for i := range s.recs[k].Records {
				r := &s.recs[k].Records[i]
				r.ID = fmt.Sprintf("r%03d", i)
				r.PromptTokens = prompt(s.side, i)
				total += int64(r.PromptTokens)
			}
			s.runs[k].Result.Summary.InputTokens = total
		}
	}
	return a, b, ra, rb
}

// TestInputsDiffer: the same workload reaching the engines as different
// prompt tokens is NOT COMPARABLE unless declared; one BOS more on every
// request, or a few requests off, is not a difference; without records
// the results' input tokens per request decide; the cause names Ollama's
// template when the manifest carries it.
func TestInputsDiffer(t *testing.T) {
	templated := func(side string, i int) int { // llama.cpp 33, Ollama's template 60
		if side == "b" {
			return 60 + i%3
		}
		return 33 + i%3
	}
	bos := func(side string, i int) int {
		if side == "b" {
			return 34 + i%3
		}
		return 33 + i%3
	}
	few := func(side string, i int) int {
		if side == "b" && i < 4 {
			return 50
		}
		return 33
	}
	for _, tc := range []struct {
		name        string
		prompt      func(string, int) int
		records     bool
		intentional []string
		wrapped     bool
		differs     bool
		comparable  bool
		source      string
		cause       string
	}{
		{"template", templated, true, nil, true, true, false, "records", "engine B (ollama) wraps every completions prompt in the model's chat template"},
		{"template declared", templated, true, []string{InputsField}, true, true, true, "records", "wraps"},
		{"template declared as a group", templated, true, []string{"inputs"}, false, true, true, "records", "likely a chat template or special tokens that engine B adds"},
		{"one BOS", bos, true, nil, false, false, true, "records", ""},
		{"a few requests", few, true, nil, false, false, true, "records", ""},
		{"no records", templated, false, nil, false, true, false, "summary", "engine B adds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b, ra, rb := inputsSides(tc.prompt)
			if tc.wrapped {
				for _, run := range b {
					run.Result.Manifest.Engine = "ollama"
					run.Result.Manifest.Extra = map[string]string{"ollama_template": "wrapped"}
				}
			}
			in := Input{A: a, B: b, Intentional: tc.intentional, Resamples: 200}
			if tc.records {
				in.RecordsA, in.RecordsB = ra, rb
			}
			rep, err := New(in)
			if err != nil {
				t.Fatal(err)
			}
			x := rep.Inputs
			if x == nil || x.Differs != tc.differs || x.Source != tc.source || rep.Comparable != tc.comparable {
				t.Fatalf("inputs %+v, comparable %v %v", x, rep.Comparable, rep.NotComparable)
			}
			if !strings.Contains(x.Cause, tc.cause) {
				t.Errorf("cause %q, want %q", x.Cause, tc.cause)
			}
			listed := slices.ContainsFunc(rep.Differences, func(d Difference) bool { return d.Field == InputsField && d.Critical })
			if listed != tc.differs || slices.Contains(rep.NotComparable, InputsField) == tc.comparable {
				t.Errorf("differences %+v, not comparable %v", rep.Differences, rep.NotComparable)
			}
			if tc.differs && !tc.comparable && !strings.HasPrefix(rep.Conclusion.Sentence, "NOT COMPARABLE: "+InputsField+" differs") {
				t.Errorf("sentence %q", rep.Conclusion.Sentence)
			}
			if s := x.Sentence(); (s != "") != tc.differs {
				t.Errorf("sentence %q", s)
			}
			if slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "matches no") }) {
				t.Errorf("warnings %q", rep.Warnings)
			}
		})
	}
	a, b, ra, rb := inputsSides(templated)
	rep, _ := New(Input{A: a, B: b, RecordsA: ra, RecordsB: rb, Resamples: 200})
	if x := rep.Inputs; x.Requests != 200 || x.Differ != 200 || x.Diff != 27 || !near(x.MeanA, 33.995) || !near(x.MeanB, 60.995) {
		t.Errorf("figures %+v", x)
	}
	want := "the engines saw different inputs for the same workload: B−A +27 prompt tokens per request (median over 200 requests; 200 differ by more than one), 34.0 vs 61.0 on average"
	if !strings.HasPrefix(rep.Inputs.Sentence(), want) {
		t.Errorf("sentence %q\nwant prefix %q", rep.Inputs.Sentence(), want)
	}
}

// TestResultNotesCarried: a note the results carry (an engine without a
// metrics endpoint) reaches the report once per side.
func TestResultNotesCarried(t *testing.T) {
	a, b, _, _ := inputsSides(func(string, int) int { return 33 })
	for _, run := range b {
		run.Result.Notes = []string{"server metrics: not scraped (engine ollama has no metrics endpoint)"}
	}
	rep, err := New(Input{A: a, B: b, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, note := range rep.Notes {
		if note == "B: server metrics: not scraped (engine ollama has no metrics endpoint)" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("notes %q", rep.Notes)
	}
}
