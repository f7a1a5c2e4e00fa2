package experiment

import (
	"slices"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"servecmp serve-sim --addr 127.0.0.1:8002", []string{"servecmp", "serve-sim", "--addr", "127.0.0.1:8002"}},
		{"  a \t b\n c  ", []string{"a", "b", "c"}},
		{`run --name 'two words' --json "{\"k\": \"v\"}"`, []string{"run", "--name", "two words", "--json", `{"k": "v"}`}},
		{`a'b'c "d"e`, []string{"abc", "de"}},
		{`x '' ""`, []string{"x", "", ""}},
		{`a\ b c\\d`, []string{"a b", `c\d`}},
		{`'it'\''s'`, []string{"it's"}},
		{`"back\slash" '$HOME' | > *`, []string{`back\slash`, "$HOME", "|", ">", "*"}},
		{"", nil},
	} {
		got, err := SplitCommand(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`, `a \`, `"a\"`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
}

// TestCommandLineRoundTrip checks that CommandLine quotes each word so
// that SplitCommand gives the words back.
func TestCommandLineRoundTrip(t *testing.T) {
	for _, words := range [][]string{
		{"servecmp", "serve-sim", "--addr", "127.0.0.1:8002"},
		{"sh", "-c", `echo "hi" 'there' \ $X`},
		{"a", "", "it's", "tab\there", "new\nline"},
	} {
		line := Launch{Command: words}.CommandLine()
		got, err := SplitCommand(line)
		if err != nil || !slices.Equal(got, words) {
			t.Errorf("%q → %s → %q, %v", words, line, got, err)
		}
	}
}
