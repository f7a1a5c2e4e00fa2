package classify

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestWriteIndentedMatchesEncoder: the saved summary and the JSON
// document, written one rank at a time, are the bytes json.Encoder
// writes for the whole report.
func TestWriteIndentedMatchesEncoder(t *testing.T) {
	for _, ranks := range [][]*RankSummary{nil, {}, {rankSummary("a", 10, 5, 1)}, {rankSummary("a", 10, 5, 1), rankSummary("b<&>", 300, 50, 4)}} {
		r := &Report{RulesDigest: "d", Ranks: ranks, Warnings: []string{`"ranks": null`, "<x>"}}
		if len(ranks) > 0 {
			r2, _ := NewReport("d", ranks)
			r2.Warnings = append(r2.Warnings, `"ranks": null`)
			r = r2
		}
		for _, ind := range []string{" ", "  "} {
			var a, b bytes.Buffer
			c := *r
			enc := json.NewEncoder(&a)
			enc.SetIndent("", ind)
			enc.Encode(&c)
			c.writeIndented(&b, ind)
			if a.String() != b.String() {
				t.Errorf("differ:\n%s\n---\n%s", a.String(), b.String())
			}
		}
	}
}
