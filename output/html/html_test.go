package html

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/testkit/fixture"
	"github.com/servecmp/servecmp/internal/testkit/golden"
	"github.com/servecmp/servecmp/output/plots"
	"github.com/servecmp/servecmp/output/present"
)

func page(t *testing.T, rep *compare.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The golden file holds the page without what gonum/plot produces: the
// embedded font's base64 payload and the drawing inside each <svg>
// element (paths and text whose last digits may differ across
// architectures and which output/plots tests). The <svg> tags, the
// style sheet and every table are kept.
var (
	fontData = regexp.MustCompile(`base64,[A-Za-z0-9+/=]+\)`)
	drawing  = regexp.MustCompile(`(?s)(<svg [^>]*>\n).*?(</svg>)`)
)

func TestGolden(t *testing.T) {
	got := page(t, fixture.Report())
	if n := len(fontData.FindAllString(got, -1)); n != 1 {
		t.Errorf("page embeds %d font payloads, want 1 (each font once)", n)
	}
	got = fontData.ReplaceAllString(got, "base64,FONT)")
	golden.Match(t, "testdata/fixture.html", drawing.ReplaceAllString(got, "${1}<!-- drawing -->\n${2}"))
}

func TestDeterministic(t *testing.T) {
	if a, b := page(t, fixture.Report()), page(t, fixture.Report()); a != b {
		t.Error("two pages of the same report differ")
	}
}

// TestTextOrder checks that the page holds the text report's content in
// its order: the headline lines, every table title, the notes, then the
// profiling limitations and the causal note.
func TestTextOrder(t *testing.T) {
	rep := fixture.Report()
	got := page(t, rep)
	var want []string
	for _, l := range present.Headline(rep) {
		want = append(want, "<li>"+esc(l)+"</li>")
	}
	_, t1, _, t2 := present.ComparisonLayers(rep)
	for _, tb := range t1 {
		want = append(want, "<caption>"+esc(tb.Title)+"</caption>")
	}
	for _, n := range rep.Notes {
		want = append(want, "<li>note: "+esc(n)+"</li>")
	}
	for _, tb := range t2 {
		want = append(want, "<caption>"+esc(tb.Title)+"</caption>")
	}
	for _, l := range rep.GPU.Limitations {
		want = append(want, "<li>"+esc(l)+"</li>")
	}
	want = append(want, esc(rep.GPU.Note))
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order after byte %d", w, at)
		}
		at += i + len(w)
	}
	figs, err := plots.Figures(rep, plots.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "<svg "); n != len(figs) || n == 0 {
		t.Errorf("page has %d inline SVGs, want one per figure (%d)", n, len(figs))
	}
	for _, m := range drawing.FindAllStringSubmatchIndex(got, -1) {
		body := got[m[3]:m[4]]
		if !strings.Contains(body, "<path") || !strings.Contains(body, "<text") || strings.Contains(body, "<defs>") {
			t.Errorf("figure %q has no drawing or kept its own font definitions", got[m[2]:m[3]])
		}
	}
	_, _, h2, _ := present.ComparisonLayers(rep)
	if i, j := strings.Index(got, `aria-label="regions_per_rank"`), strings.Index(got, "<h2>"+esc(h2)); i < j || j < 0 {
		t.Errorf("the region figure is not in layer 2")
	}
	if i, j := strings.Index(got, `aria-label="throughput_latency"`), strings.Index(got, "<h2>"+esc(h2)); i > j || i < 0 {
		t.Errorf("the throughput-latency figure is not in layer 1")
	}
}

// TestSelfContained checks that the page references nothing outside
// itself: no script, no element that loads, no URL but data: URLs and the
// SVG namespace, and a Content-Security-Policy that forbids the rest.
func TestSelfContained(t *testing.T) {
	got := page(t, fixture.Report())
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "<embed", " src=", " href=", "xlink:href", "@import"} {
		if strings.Contains(strings.ToLower(got), bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, u := range regexp.MustCompile(`url\(([^)]{0,20})`).FindAllStringSubmatch(got, -1) {
		if !strings.HasPrefix(u[1], "data:") {
			t.Errorf("page loads url(%s…)", u[1])
		}
	}
	for _, u := range regexp.MustCompile(`https?://[^"' <]*`).FindAllString(got, -1) {
		if u != "http://www.w3.org/2000/svg" {
			t.Errorf("page names %s", u)
		}
	}
	if !strings.Contains(got, `content="default-src 'none';`) {
		t.Error("page has no Content-Security-Policy forbidding other sources")
	}
	for _, want := range []string{"@media print", "break-inside: avoid", "max-width: 100% !important"} {
		if !strings.Contains(got, want) {
			t.Errorf("print style sheet lacks %q", want)
		}
	}
}

// hostile is the fixture with names from files that try to break out of
// the page: a kernel name with a script and control characters, an
// engine name with markup, a sweep path that closes the SVG, a note with
// a URL that closes an attribute.
func hostile() *compare.Report {
	rep := fixture.Report()
	rep.GPU.A.Bottleneck().UnmappedTop[0].Name = "<script>alert('k')</script>\x00\x1b[1m & \u202ekernel\x7f"
	rep.Contract[1].A = `<img src=x onerror=alert(1)>`
	rep.Sweeps[0].Path = `</svg></figure><SCRIPT>alert(2)</SCRIPT>.json`
	rep.Notes = append(rep.Notes, `see http://x/"><script>alert(3)</script>`)
	return rep
}

func TestEscaping(t *testing.T) {
	got := page(t, hostile())
	low := strings.ToLower(got)
	for _, bad := range []string{"<script", "<img", "onerror=alert(1)>", "\x00", "\x1b", "\x7f", "\u202e"} {
		if strings.Contains(low, bad) {
			t.Errorf("page contains %q unescaped", bad)
		}
	}
	for _, c := range got {
		if c < 0x20 && c != '\n' && c != '\t' {
			t.Errorf("page contains control character %U", c)
		}
	}
	for _, want := range []string{
		"&lt;script&gt;alert(&#39;k&#39;)&lt;/script&gt;\u2400\u241b[1m &amp; \ufffdkernel\u2421",
		"&lt;img src=x onerror=alert(1)&gt;",
		"&lt;/svg&gt;&lt;/figure&gt;&lt;SCRIPT&gt;alert(2)&lt;/SCRIPT&gt;.json",
		"see http://x/&#34;&gt;&lt;script&gt;",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks the escaped form %q", want)
		}
	}
	if n := strings.Count(got, "</svg>"); n != strings.Count(got, "<svg ") {
		t.Errorf("%d </svg> for %d <svg>: a name closed a figure", n, strings.Count(got, "<svg "))
	}
}
