package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/check/checkreport"
)

func TestCheckTextSaysTextIsWeaker(t *testing.T) {
	var buf bytes.Buffer
	WriteCheckText(&buf, &checkreport.Report{Summary: checkreport.Summary{Requests: 2, ExactMatch: 2, OKBoth: 2, Passed: true, Evidence: checkreport.Text,
		EvidenceCounts: map[checkreport.Evidence]int{checkreport.Text: 2}}, Quality: checkreport.Quality{Status: "not-run"}})
	if !strings.Contains(buf.String(), "2 request(s) were compared by text, which is weaker evidence") {
		t.Errorf("check text:\n%s", buf.String())
	}
}

func TestCheckTextSaysWhichEvidence(t *testing.T) {
	var buf bytes.Buffer
	WriteCheckText(&buf, &checkreport.Report{A: checkreport.Endpoint{URL: "http://a", Engine: "llamacpp", EvidenceSource: "token ids from logprobs.content[].id"},
		Summary: checkreport.Summary{Requests: 1, ExactMatch: 1, OKBoth: 1, Passed: true, Evidence: checkreport.TokenIDs,
			EvidenceCounts: map[checkreport.Evidence]int{checkreport.TokenIDs: 1}}})
	if !strings.Contains(buf.String(), "evidence offered by http://a (llamacpp): token ids from logprobs.content[].id") {
		t.Errorf("check text:\n%s", buf.String())
	}
}
