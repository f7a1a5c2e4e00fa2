package html

import (
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"

	"github.com/servecmp/servecmp/compare"
	"github.com/servecmp/servecmp/internal/testkit/fixture"
	"github.com/servecmp/servecmp/output/present"
)

// element is a parsed page's element with its class.
type element struct {
	tag, class string
	n          *xhtml.Node
}

// mainChildren parses a page (as servecmp wrote it, or as a browser
// dumped its DOM) and returns the elements directly in <main>, in order.
func mainChildren(t *testing.T, page string) []element {
	t.Helper()
	doc, err := xhtml.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var main *xhtml.Node
	var find func(*xhtml.Node)
	find = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && n.Data == "main" {
			main = n
		}
		for c := n.FirstChild; c != nil && main == nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if main == nil {
		t.Fatal("the page has no <main>")
	}
	var out []element
	for c := main.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == xhtml.ElementNode {
			out = append(out, element{c.Data, attr(c, "class"), c})
		}
	}
	return out
}

func attr(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is the text inside n, an <svg>'s included.
func text(n *xhtml.Node) string {
	var b strings.Builder
	var walk func(*xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.TextNode {
			b.WriteString(n.Data + " ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// checkOpening checks what a reader sees first: the title, the
// conclusion, then the forest of every metric (B/A with its interval,
// the systems named), then the layers.
func checkOpening(t *testing.T, page string, rep *compare.Report) {
	t.Helper()
	els := mainChildren(t, page)
	var order []string
	for _, e := range els {
		order = append(order, e.tag+"."+e.class)
	}
	if len(els) < 4 || order[0] != "h1." || order[1] != "ul.conclusion" || els[2].tag != "figure" || !strings.Contains(els[2].class, "forest") ||
		order[3] != "section.layer" {
		t.Fatalf("the page opens with %v, want the title, the conclusion, the forest, then the layers", order)
	}
	forest := text(els[2].n)
	sides := present.SideLabels(rep)
	for _, want := range append([]string{"B/A", "log scale", sides[0], sides[1]}, metricNames(rep)...) {
		if !strings.Contains(forest, want) {
			t.Errorf("the forest lacks %q", want)
		}
	}
}

func metricNames(rep *compare.Report) []string {
	var out []string
	for _, m := range rep.Metrics {
		if m.DeltaPct != nil && m.A > 0 {
			out = append(out, m.Name)
		}
	}
	return out
}

// TestPageOpensWithForest: with records or without, the page opens with
// the conclusion and the forest; without records the forest is a figure
// the page still has.
func TestPageOpensWithForest(t *testing.T) {
	with := fixture.Report()
	without := fixture.Report()
	without.Latency = nil
	for name, rep := range map[string]*compare.Report{"with records": with, "without records": without} {
		t.Run(name, func(t *testing.T) { checkOpening(t, page(t, rep), rep) })
	}
}
