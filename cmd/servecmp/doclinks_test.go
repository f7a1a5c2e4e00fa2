package main

// TestDocLinks follows every relative link and image of README.md and
// docs/*.md: the file must exist inside the repository and, for a link
// with a #fragment into a markdown page, the page must have a heading
// with that anchor (GitHub's rule: lower case, punctuation dropped,
// spaces to hyphens, -1, -2 ... for repeats). Links in code (fenced blocks,
// `spans`) are not links and are skipped; so are links with a scheme
// (https:, mailto:).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// pendingLinks are pages another branch is writing: a link to one is
// allowed while it is missing. Once the page exists the entry must go.
var pendingLinks = map[string]string{}

// mdLink is one link or image of a markdown page.
type mdLink struct {
	line   int
	target string
}

var (
	linkRE    = regexp.MustCompile(`!?\[[^\]]*\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	headingRE = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	codeRE    = regexp.MustCompile("(`+)[^`]*?(`+)")
)

// stripCode removes inline code spans from a line.
func stripCode(l string) string {
	return codeRE.ReplaceAllString(l, "")
}

// mdLinks returns the links of a markdown page outside code.
func mdLinks(md string) []mdLink {
	var out []mdLink
	fence := ""
	for i, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		if f := fenceOf(t); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(t, fence) && strings.TrimLeft(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if fence != "" || strings.HasPrefix(l, "    ") {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(stripCode(l), -1) {
			out = append(out, mdLink{line: i + 1, target: m[1]})
		}
	}
	return out
}

// fenceOf returns the fence a line opens or closes (``` or ~~~, three or
// more), or "".
func fenceOf(t string) string {
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// mdAnchors returns the anchors of a markdown page's headings.
func mdAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		if f := fenceOf(t); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(t, fence) && strings.TrimLeft(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		m := headingRE.FindStringSubmatch(l)
		if fence != "" || m == nil {
			continue
		}
		a := anchorOf(m[1])
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// anchorOf is the anchor GitHub gives a heading's text.
func anchorOf(h string) string {
	h = linkRE.ReplaceAllStringFunc(h, func(s string) string { // [text](url) -> text
		return s[strings.Index(s, "[")+1 : strings.Index(s, "](")]
	})
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// brokenLinks checks the links of page (relative to repo) and returns one
// "page:line: ..." line per broken one.
func brokenLinks(repo, page string, pending map[string]string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(repo, page))
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, l := range mdLinks(string(b)) {
		if strings.Contains(l.target, ":") { // https:, mailto:
			continue
		}
		path, frag, _ := strings.Cut(l.target, "#")
		target := page
		if path != "" {
			target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), path)))
		}
		at := fmt.Sprintf("%s:%d: %s", page, l.line, l.target)
		if target == ".." || strings.HasPrefix(target, "../") || filepath.IsAbs(path) {
			bad = append(bad, at+": leaves the repository")
			continue
		}
		if _, ok := pending[target]; ok {
			continue
		}
		st, err := os.Stat(filepath.Join(repo, target))
		switch {
		case err != nil:
			bad = append(bad, at+": no such file")
			continue
		case st.IsDir() && frag != "":
			bad = append(bad, at+": an anchor into a directory")
			continue
		case frag == "" || !strings.HasSuffix(target, ".md"):
			continue
		}
		tb, err := os.ReadFile(filepath.Join(repo, target))
		if err != nil {
			return nil, err
		}
		if !mdAnchors(string(tb))[frag] {
			bad = append(bad, fmt.Sprintf("%s: %s has no heading with anchor #%s", at, target, frag))
		}
	}
	return bad, nil
}

func TestDocLinks(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("docs/ holds %d pages; the manual seems lost", len(pages))
	}
	pending := map[string]string{}
	for p, what := range pendingLinks {
		if _, err := os.Stat(filepath.Join(repo, p)); err == nil {
			t.Errorf("%s (%s) exists now: remove it from pendingLinks in doclinks_test.go", p, what)
			continue
		}
		pending[p] = what
	}
	for _, p := range append([]string{filepath.Join(repo, "README.md")}, pages...) {
		rel, err := filepath.Rel(repo, p)
		if err != nil {
			t.Fatal(err)
		}
		bad, err := brokenLinks(repo, filepath.ToSlash(rel), pending)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
	}
}

func TestBrokenLinks(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "docs", "schema"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"README.md": "# Top\n\n[a](docs/a.md#the-run-is-the-unit) [a2](docs/a.md#nope) [gone](docs/gone.md)\n" +
			"![img](docs/p.png) [web](https://example.org/x) [self](#top) [pending](docs/later.md)\n" +
			"`[code](docs/code.md)`\n```\n[fenced](docs/fenced.md)\n```\n[out](../x.md) [dir](docs/schema)\n",
		"docs/a.md": "# A page\n\n## The run is the unit\n\n```\n# not a heading\n```\n## Twice\n## Twice\n" +
			"[back](../README.md#top) [twice](#twice-1) [not](#not-a-heading) [three](#twice-2)\n",
		"docs/p.png": "",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pending := map[string]string{"docs/later.md": "later"}
	got, err := brokenLinks(repo, "README.md", pending)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:3: docs/a.md#nope: docs/a.md has no heading with anchor #nope",
		"README.md:3: docs/gone.md: no such file",
		"README.md:9: ../x.md: leaves the repository",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("README.md: broken links\n%q, want\n%q", got, want)
	}
	got, err = brokenLinks(repo, "docs/a.md", pending)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"docs/a.md:10: #not-a-heading: docs/a.md has no heading with anchor #not-a-heading",
		"docs/a.md:10: #twice-2: docs/a.md has no heading with anchor #twice-2",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("docs/a.md: broken links\n%q, want\n%q", got, want)
	}
	for h, want := range map[string]string{
		"One command: `servecmp run`":                 "one-command-servecmp-run",
		"Outputs to load: schemas, metric names, CSV": "outputs-to-load-schemas-metric-names-csv",
		"Conversations (`--multi-turn`)":              "conversations---multi-turn",
		"A real engine: llama.cpp's server":           "a-real-engine-llamacpps-server",
		"See [the page](x.md) now":                    "see-the-page-now",
	} {
		if got := anchorOf(h); got != want {
			t.Errorf("anchorOf(%q) = %q, want %q", h, got, want)
		}
	}
}
