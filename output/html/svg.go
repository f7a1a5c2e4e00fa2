package html

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/servecmp/servecmp/output/plots"
)

// fontSet holds the @font-face rules of the fonts the figures use, each
// once, in the order first used.
type fontSet struct {
	faces []string
	seen  map[string]bool
}

func newFontSet() *fontSet { return &fontSet{seen: map[string]bool{}} }

func (s *fontSet) add(face string) {
	if !s.seen[face] {
		s.seen[face] = true
		s.faces = append(s.faces, face)
	}
}

var (
	svgOpen  = regexp.MustCompile(`<svg width="([^"]+)" height="[^"]+" viewBox="([^"]+)"`)
	fontFace = regexp.MustCompile(`(?s)@font-face\{.*?\n\s*\}`)
)

// inlineSVG draws f with vgsvg and returns it as an <svg> element for an
// HTML page: without the XML prologue, scaled to the width of its
// container up to its natural width, with its embedded fonts moved to
// fonts so that each font is carried once per page.
func inlineSVG(f plots.Figure, fonts *fontSet) (string, error) {
	c := vgsvg.NewWith(vgsvg.UseWH(f.W, f.H), vgsvg.EmbedFonts(true))
	f.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("figure %s: %w", f.Name, err)
	}
	s := b.String()
	m := svgOpen.FindStringSubmatchIndex(s)
	if m == nil {
		return "", fmt.Errorf("figure %s: unexpected SVG prologue", f.Name)
	}
	width, viewBox := s[m[2]:m[3]], s[m[4]:m[5]]
	end := strings.IndexByte(s[m[1]:], '>')
	if end < 0 {
		return "", fmt.Errorf("figure %s: unterminated <svg> tag", f.Name)
	}
	body := strings.TrimLeft(s[m[1]+end+1:], "\n")
	if strings.HasPrefix(body, "<defs>") {
		stop := strings.Index(body, "</defs>")
		if stop < 0 {
			return "", fmt.Errorf("figure %s: unterminated <defs>", f.Name)
		}
		for _, face := range fontFace.FindAllString(body[:stop], -1) {
			fonts.add(face)
		}
		body = strings.TrimLeft(body[stop+len("</defs>"):], "\n")
	}
	return fmt.Sprintf("<svg class=\"plot\" viewBox=\"%s\" style=\"max-width:%s\" role=\"img\" aria-label=\"%s\" xmlns=\"http://www.w3.org/2000/svg\">\n%s",
		viewBox, width, esc(f.Name), body), nil
}
