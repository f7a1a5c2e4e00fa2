package table

import (
	"bytes"
	"strings"
	"testing"
)

func TestHTML(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, sample()); err != nil {
		t.Fatal(err)
	}
	want := `<div class="t"><table class="t">
<caption>Regions</caption>
<thead><tr><th>region</th><th class="num">count</th><th class="num">busy ms</th><th class="num">share %</th></tr></thead>
<tbody>
<tr><td>attention</td><td class="num">3</td><td class="num">1.500</td><td class="num">25.0</td></tr>
<tr><td>ffn</td><td class="num">12</td><td class="num">0.000</td><td class="num">-</td></tr>
</tbody>
</table></div>
<p class="note">note: shares are of the window</p>
<div class="t"><table class="t">
<caption>Work</caption>
<thead><tr><th>rank</th><th class="num">per_req ms/req</th></tr></thead>
<tbody>
<tr><td>0</td><td class="num">-</td></tr>
<tr><td>abcdefgh</td><td class="num">2.500</td></tr>
</tbody>
</table></div>
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestHTMLMatchesText checks that every cell HTML writes is the cell Text
// writes, for columns with Digits, Floor and Sig3.
func TestHTMLMatchesText(t *testing.T) {
	p := Column{Name: "p", Unit: Count, Floor: 1e-4}
	tb := &Table{Title: "x", Columns: []Column{{Name: "d", Unit: "%", Digits: 4}, p, {Name: "w", Unit: NSPerTok, Sig3: true}}}
	tb.Add(12.34567, 1e-9, 17200.0)
	var txt, h bytes.Buffer
	Text(&txt, []*Table{tb})
	HTML(&h, []*Table{tb})
	for _, cell := range strings.Fields(strings.Split(txt.String(), "\n")[2]) {
		if !strings.Contains(h.String(), `<td class="num">`+EscapeHTML(cell)+"</td>") {
			t.Errorf("text cell %q not in the HTML:\n%s", cell, h.String())
		}
	}
}

func TestEscapeHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain_kernel<128>", "plain_kernel&lt;128&gt;"},
		{`<script>alert("x" & 'y')</script>`, "&lt;script&gt;alert(&#34;x&#34; &amp; &#39;y&#39;)&lt;/script&gt;"},
		{"a\x1b[31mred\x00\x7f", "a\u241b[31mred\u2400\u2421"},
		{"tab\tnew\nline", "tab\tnew\nline"},
		{"bad\xffutf8", "bad\ufffdutf8"},
		{"c1\u0085 bidi\u202egnp.exe", "c1\ufffd bidi\ufffdgnp.exe"},
		{"µs → 99%", "µs → 99%"},
	} {
		if got := EscapeHTML(c.in); got != c.want {
			t.Errorf("EscapeHTML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestHTMLLongCell(t *testing.T) {
	name := "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
	tb := &Table{Columns: []Column{{Name: "name", Max: 20}, {Name: "count", Unit: Count}}}
	tb.Add(name, int64(3))
	tb.Add("short", int64(1))
	var b bytes.Buffer
	HTML(&b, []*Table{tb})
	for _, want := range []string{`<td class="long">` + EscapeHTML(name) + "</td>", "<td>short</td>"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %s in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "<caption>") {
		t.Errorf("a table without a title has a caption:\n%s", b.String())
	}
}
