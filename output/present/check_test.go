package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/check"
)

func TestCheckTextSaysTextIsWeaker(t *testing.T) {
	var buf bytes.Buffer
	WriteCheckText(&buf, &check.Report{Summary: check.Summary{Requests: 2, ExactMatch: 2, OKBoth: 2, Passed: true, Evidence: check.Text,
		EvidenceCounts: map[check.Evidence]int{check.Text: 2}}, Quality: check.Quality{Status: "not-run"}})
	if !strings.Contains(buf.String(), "2 request(s) were compared by text, which is weaker evidence") {
		t.Errorf("check text:\n%s", buf.String())
	}
}

func TestCheckTextSaysWhichEvidence(t *testing.T) {
	var buf bytes.Buffer
	WriteCheckText(&buf, &check.Report{A: check.Endpoint{URL: "http://a", Engine: "llamacpp", EvidenceSource: "token ids from logprobs.content[].id"},
		Summary: check.Summary{Requests: 1, ExactMatch: 1, OKBoth: 1, Passed: true, Evidence: check.TokenIDs,
			EvidenceCounts: map[check.Evidence]int{check.TokenIDs: 1}}})
	if !strings.Contains(buf.String(), "evidence offered by http://a (llamacpp): token ids from logprobs.content[].id") {
		t.Errorf("check text:\n%s", buf.String())
	}
}
