package checkreport

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestCompareCounts(t *testing.T) {
	a := Output{OK: true, PromptTokens: 5, CompletionTokens: 3, TokenIDs: []int{1, 2, 3}}
	b := Output{OK: true, PromptTokens: 6, CompletionTokens: 4, TokenIDs: []int{1, 2, 3, 4}}
	r := Compare("x", a, b)
	if r.Match || r.InputMatch || r.OutputCountMatch || r.Divergence == nil || r.Divergence.Position != 3 || len(r.Divergence.A) != 0 || r.Divergence.B[0] != "4" {
		t.Errorf("%+v", r)
	}
}

func TestQualityValidate(t *testing.T) {
	for _, tc := range []struct {
		err  error
		fail bool
	}{
		{Quality{Status: "not-run"}.Validate(), false},
		{Quality{Status: "maybe"}.Validate(), true},
	} {
		if (tc.err != nil) != tc.fail {
			t.Errorf("got %v, want failure %v", tc.err, tc.fail)
		}
	}
}

func TestReportJSON(t *testing.T) {
	b, err := (&Report{Schema: Schema}).JSON()
	if err != nil || !json.Valid(b) || !bytes.HasSuffix(b, []byte("}\n")) || !bytes.Contains(b, []byte("\n  \"schema\"")) {
		t.Errorf("JSON() = %q, %v", b, err)
	}
}
