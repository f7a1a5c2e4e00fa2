package benchmark

import (
	"fmt"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/internal/redact"
)

// maxFailText bounds the error text quoted in failureWarning.
const maxFailText = 300

// failureWarning names why a step's requests failed when none succeeded:
// the class counts alone ("connection=4") do not say that the server
// answered with a redirect, refused the key or was not there. It quotes
// the first failed request's error, already scrubbed of the key and URL
// credentials by the client (and the warning is scrubbed again where the
// result is finished).
func failureWarning(w *warnings, sum *result.Summary, recs []result.Record) {
	if sum.RequestsOK > 0 || sum.RequestsFailed == 0 {
		return
	}
	for i := range recs {
		if r := &recs[i]; !r.OK && r.Error != "" {
			msg := redact.Clip(r.Error, maxFailText)
			w.add(fmt.Sprintf("every request failed; the first (%s): %s", r.ErrorClass, msg))
			return
		}
	}
}
