package table

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	long := strings.Repeat("word ", 60)
	for _, l := range Wrap(long, 40, "note: ", "      ") {
		if utf8.RuneCountInString(l) > 40 || (!strings.HasPrefix(l, "note: ") && !strings.HasPrefix(l, "      word")) {
			t.Errorf("line %q", l)
		}
	}
	path := "/a/very/long/path/" + strings.Repeat("x", 60)
	if got := Wrap("see "+path+" now", 40, "", "  "); len(got) != 3 || got[1] != "  "+path {
		t.Errorf("a long word is split or merged: %q", got)
	}
	if got := Wrap("short", 40, "- ", "  "); len(got) != 1 || got[0] != "- short" {
		t.Errorf("%q", got)
	}
}

// TestTextWidth: a table wider than TextWidth leaves out its Drop
// columns, highest first, and says which; long Footnote cells move below
// it; titles and notes wrap.
func TestTextWidth(t *testing.T) {
	tb := &Table{Name: "t", Title: strings.Repeat("A long title. ", 12),
		Columns: []Column{{Name: "name"}, {Name: "value", Unit: "ms"}, {Name: "wide_one", Drop: 1}, {Name: "wide_two", Drop: 2}, {Name: "cmd", Footnote: true}},
		Notes:   []string{strings.Repeat("a long note ", 20)}}
	tb.Add("x", 1.5, strings.Repeat("w", 60), strings.Repeat("v", 60), "servecmp serve-sim --addr 127.0.0.1:8000 --model m --max-running 32")
	tb.Add("y", 2.5, "short", "short", "short")
	var b strings.Builder
	if err := Text(&b, []*Table{tb}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > TextWidth {
			t.Errorf("line of %d columns: %s", utf8.RuneCountInString(l), l)
		}
	}
	for _, want := range []string{"not shown here: wide_two", "[1] name x, cmd: servecmp serve-sim", "\nnote: a long note", "\n      note a long note"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "wide_one") == false || strings.Contains(out, strings.Repeat("v", 60)) {
		t.Errorf("dropped the wrong column:\n%s", out)
	}
}

// TestTextWidthShortFootnotes: when Footnote cells short enough to stay
// in place leave the table too wide with every Drop column left out, they
// go to footnotes too (the capacity table's result paths); a table that
// fits keeps them in place.
func TestTextWidthShortFootnotes(t *testing.T) {
	tb := &Table{Name: "t", Columns: []Column{{Name: "side"}, {Name: "status"}, {Name: "load", Unit: "req"},
		{Name: "wide", Drop: 1}, {Name: "path", Footnote: true}}}
	path := "demo-out/sweep-a/result.json" // 28 runes: in place when it fits
	tb.Add("A", strings.Repeat("s", 85), 4.0, strings.Repeat("w", 30), path)
	tb.Add("B", "met", 16.0, "w", "demo-out/sweep-b/result.json")
	var b strings.Builder
	if err := Text(&b, []*Table{tb}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > TextWidth {
			t.Errorf("line of %d columns: %s", utf8.RuneCountInString(l), l)
		}
	}
	if !strings.Contains(out, "[1] side A, path: "+path) || !strings.Contains(out, "not shown here: wide") {
		t.Errorf("want the paths as footnotes:\n%s", out)
	}
	tb.Rows = tb.Rows[1:]
	b.Reset()
	if err := Text(&b, []*Table{tb}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "demo-out/sweep-b/result.json\n") {
		t.Errorf("a table that fits keeps its paths in place:\n%s", b.String())
	}
}
