package present

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/servecmp/servecmp/profile"
)

// WriteProfileText writes a servecmp profile result as text: the
// benchmark summary, then the profile block. Times are seconds on the
// run's clock.
func WriteProfileText(w io.Writer, r *profile.Result) error {
	if err := WriteBenchmarkText(w, r.Result); err != nil {
		return err
	}
	return writeProfileBlock(w, r.Profile)
}

func writeProfileBlock(w io.Writer, b *profile.Block) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nprofile\t%s profiler API\n", b.API)
	if b.StopS > b.StartS {
		fmt.Fprintf(tw, "window\t%.3f s .. %.3f s (%.3f s; start sent %.3f s, stop answered %s)\n",
			b.StartS, b.StopS, b.DurationS(), b.Start.RequestedS, ackText(b.Stop))
		ww := b.WindowWork
		fmt.Fprintf(tw, "window work\t%d requests, %d input tokens, %d output tokens\n", ww.Requests, ww.InputTokens, ww.OutputTokens)
	} else {
		fmt.Fprintf(tw, "window\tnone: the profiler did not run\n")
	}
	if b.TraceDir != "" {
		fmt.Fprintf(tw, "traces\t%s: %d new file(s)\n", b.TraceDir, len(b.Files))
		for _, f := range b.Files {
			fmt.Fprintf(tw, "\t%s\n", f)
		}
	}
	if b.Stop != nil && (b.Start.Answer != "" || b.Stop.Answer != "") {
		fmt.Fprintf(tw, "answers\tstart %q, stop %q\n", b.Start.Answer, b.Stop.Answer)
	}
	return tw.Flush()
}

// ackText is when a call was answered.
func ackText(c *profile.Call) string {
	if c == nil || c.AcknowledgedS == nil {
		return "never"
	}
	return fmt.Sprintf("%.3f s", *c.AcknowledgedS)
}
