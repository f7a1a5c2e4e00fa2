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
