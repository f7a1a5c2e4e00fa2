package emit

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/output/html"
	"github.com/servecmp/servecmp/output/plots"
	"github.com/servecmp/servecmp/output/present"
	"github.com/servecmp/servecmp/output/xlsx"
)

// Files are the report files of a comparison: the workbook, the HTML page
// and the plot directory (made when missing); "" skips one. Options are
// the renderers' options (the SLO lines drawn).
type Files struct {
	XLSX, HTML, Plots string
	Options           plots.Options
	// Flags makes each error name the flag of its file (--xlsx, --html,
	// --plots) and the file, as compare's are.
	Flags bool
	// Wrote, when set, is told each file written.
	Wrote func(path string)
}

// Write writes the files of f for rep. It returns a warning when a plot
// directory got no plot.
func (f Files) Write(rep *compare.Report) (warnings []string, err error) {
	if f.XLSX != "" {
		if err := xlsx.WriteFile(f.XLSX, rep, xlsx.Options{SLO: f.Options.SLO}); err != nil {
			return nil, f.fail("--xlsx", f.XLSX, err)
		}
		f.wrote(f.XLSX)
	}
	if f.HTML != "" {
		if err := html.WriteFile(f.HTML, rep, html.Options{Plots: f.Options}); err != nil {
			return nil, f.fail("--html", f.HTML, err)
		}
		f.wrote(f.HTML)
	}
	if f.Plots == "" {
		return nil, nil
	}
	files, err := plots.Write(f.Plots, rep, f.Options)
	if err != nil {
		return nil, f.fail("--plots", f.Plots, err)
	}
	for _, p := range files {
		f.wrote(p)
	}
	if len(files) == 0 {
		warnings = append(warnings, "no plot written to "+f.Plots+": latency CDFs need --records-a/--records-b, load curves sweep results, region bars --profile-a/--profile-b")
	}
	return warnings, nil
}

func (f Files) fail(flag, path string, err error) error {
	if f.Flags {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return err
}

func (f Files) wrote(path string) {
	if f.Wrote != nil {
		f.Wrote(path)
	}
}

// RunFiles are the report files of a run, by name in its output
// directory Dir (written inside it, told to its manifest): the text
// report, the workbook, the HTML page and the plot folder; "" skips one.
type RunFiles struct {
	Dir                     *atomicfile.Dir
	Text, XLSX, HTML, Plots string
}

// RunReport writes the report of a run's comparison: the files of f
// (workbook, plots, HTML page), drawn with the SLO's lines, then the text
// report into f.Text, which it also writes to stdout, and the report's
// warnings to stderr.
func RunReport(stdout, stderr io.Writer, f RunFiles, rep *compare.Report, slo result.SLO) error {
	var buf bytes.Buffer
	if err := present.WriteComparison(&buf, rep, "text"); err != nil {
		return err
	}
	o := plots.Options{SLO: compare.SLOLines(slo)}
	if f.XLSX != "" {
		if err := f.Dir.WriteFunc(f.XLSX, func(w io.Writer) error { return xlsx.Write(w, rep, xlsx.Options{SLO: o.SLO}) }); err != nil {
			return err
		}
	}
	if f.HTML != "" {
		if err := f.Dir.WriteFunc(f.HTML, func(w io.Writer) error { return html.Write(w, rep, html.Options{Plots: o}) }); err != nil {
			return err
		}
	}
	if f.Plots != "" {
		d, err := f.Dir.Sub(f.Plots)
		if err != nil {
			return err
		}
		if _, err := plots.WriteDir(d, rep, o); err != nil {
			return err
		}
	}
	if f.Text != "" {
		if err := f.Dir.Write(f.Text, buf.Bytes()); err != nil {
			return err
		}
	}
	_, err := stdout.Write(buf.Bytes())
	Warn(stderr, rep.Warnings...)
	return err
}

// RunOutcome is the outcome of a run's report (servecmp run), as compare
// and benchmark decide theirs: NOT COMPARABLE (exit 3) first, then
// measured runs with too many failed requests (exit 4, failed lists
// them); nil otherwise, or when there is no report.
func RunOutcome(rep *compare.Report, failed []string) error {
	if rep == nil {
		return nil
	}
	if err := NotComparable(rep); err != nil {
		return err
	}
	if len(failed) > 0 {
		return &outcome{fmt.Errorf("too many failed requests: %s", strings.Join(failed, "; ")), ErrTooManyFailures}
	}
	return nil
}

// NotComparable is the outcome of a complete comparison report: an error
// marked ErrNotComparable (exit 3) when it says NOT COMPARABLE, so that a
// pipeline cannot take its verdicts; nil otherwise.
func NotComparable(rep *compare.Report) error {
	if rep.Comparable {
		return nil
	}
	return &outcome{fmt.Errorf("NOT COMPARABLE: %s differ(s); declare intended differences with --intentional", strings.Join(rep.NotComparable, ", ")), ErrNotComparable}
}
