// Package html writes a comparison as one self-contained HTML page: the
// text report's content in its order (layer 1 with the headline first,
// its tables, notes and warnings; then layer 2 with the GPU-time tables
// and the profiling limitations), with the plots of output/plots drawn
// as inline SVG: the forest of every metric under the conclusion, which
// opens the page, the others at the end of the layer they belong to.
//
// Invariants: the page loads nothing: no script, no external style sheet,
// image or font (the plots' fonts are embedded once, as data URLs, and a
// Content-Security-Policy forbids any other source); every string that
// comes from an input file (engine and kernel names, paths, URLs) is
// escaped with table.EscapeHTML; the bytes depend only on the report and
// the options (no clock, no random identifiers). Numbers are formatted
// as the text report formats them (table.HTML). A print style sheet keeps
// table rows and plots whole and fits plots to the page width.
package html

import (
	"io"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/atomicfile"
	"github.com/servecmp/servecmp/output/plots"
	"github.com/servecmp/servecmp/output/present"
	"github.com/servecmp/servecmp/output/table"
)

// Options tunes the page.
type Options struct {
	// Plots tunes the embedded figures (SLO lines).
	Plots plots.Options
}

// WriteFile writes the page to path through internal/atomicfile.
func WriteFile(path string, rep *compare.Report, o Options) error {
	return atomicfile.WriteFunc(path, func(w io.Writer) error { return Write(w, rep, o) })
}

// Write writes the page for rep to w.
func Write(w io.Writer, rep *compare.Report, o Options) error {
	figs, err := plots.Figures(rep, o.Plots)
	if err != nil {
		return err
	}
	var top, svg1, svg2 []figure
	fonts := newFontSet()
	for _, f := range figs {
		svg, err := inlineSVG(f, fonts)
		if err != nil {
			return err
		}
		s := figure{svg: svg, wide: f.W > wideFigure}
		switch {
		case f.Name == plots.ForestName:
			top = append(top, s)
		case layer2Figure(f.Name):
			svg2 = append(svg2, s)
		default:
			svg1 = append(svg1, s)
		}
	}
	h1, t1, h2, t2 := present.ComparisonLayers(rep)
	var b strings.Builder
	writeHead(&b, fonts)
	writeList(&b, "conclusion", "", present.Conclusion(rep))
	for _, f := range top { // every metric at a glance, under the conclusion
		b.WriteString("<figure class=\"wide forest\">\n" + f.svg + "</figure>\n")
	}
	b.WriteString("<section class=\"layer\">\n<h2>" + esc(h1) + "</h2>\n")
	writeList(&b, "headline", "", present.Headline(rep))
	if err := table.HTML(&b, t1); err != nil {
		return err
	}
	writeList(&b, "notes", "note: ", rep.Notes)
	writeList(&b, "warnings", "warning: ", rep.Warnings)
	writeFigures(&b, svg1)
	b.WriteString("</section>\n")
	if rep.GPU != nil {
		b.WriteString("<section class=\"layer\">\n<h2>" + esc(h2) + "</h2>\n")
		if err := table.HTML(&b, t2); err != nil {
			return err
		}
		writeFigures(&b, svg2)
		b.WriteString("<h3>Profiling limitations</h3>\n")
		writeList(&b, "limitations", "", rep.GPU.Limitations)
		b.WriteString("<p class=\"causal\">" + esc(rep.GPU.Note) + "</p>\n</section>\n")
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// layer2Figure tells the figures of GPU time (the region bars) from the
// serving figures.
func layer2Figure(name string) bool { return strings.HasPrefix(name, "regions") }

// Title is the page's title and top heading.
const Title = "servecmp comparison"

// csp allows inline styles and embedded fonts, and nothing else.
const csp = "default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data:"

func writeHead(b *strings.Builder, fonts *fontSet) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"" + csp + "\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta name=\"generator\" content=\"servecmp\">\n")
	b.WriteString("<title>" + Title + "</title>\n<style>\n" + style)
	for _, f := range fonts.faces {
		b.WriteString(f + "\n")
	}
	b.WriteString("</style>\n</head>\n<body>\n<main>\n<h1>" + Title + "</h1>\n")
}

// writeList writes items as a <ul> of the class, each item after prefix;
// nothing when there are none.
func writeList(b *strings.Builder, class, prefix string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString("<ul class=\"" + class + "\">\n")
	for _, s := range items {
		b.WriteString("<li>" + esc(prefix+s) + "</li>\n")
	}
	b.WriteString("</ul>\n")
}

// figure is an inline <svg> element; wide ones span the page's width.
type figure struct {
	svg  string
	wide bool
}

// wideFigure is the natural width above which a figure is wide.
const wideFigure = 8 * vg.Inch

// writeFigures writes figs in a grid of two columns on a wide screen and
// in one column on paper.
func writeFigures(b *strings.Builder, figs []figure) {
	if len(figs) == 0 {
		return
	}
	b.WriteString("<h3>Figures</h3>\n<div class=\"figures\">\n")
	for _, f := range figs {
		if f.wide {
			b.WriteString("<figure class=\"wide\">\n" + f.svg + "</figure>\n")
		} else {
			b.WriteString("<figure>\n" + f.svg + "</figure>\n")
		}
	}
	b.WriteString("</div>\n")
}

func esc(s string) string { return table.EscapeHTML(s) }
