package event

import "testing"

func TestSniffFormat(t *testing.T) {
	for _, tc := range []struct {
		head string
		want Format
	}{
		{"\x1f\x8b\x08\x00", Kineto},
		{"{\"traceEvents\"", Kineto},
		{"  \n\t{", Kineto},
		{"\xef\xbb\xbf{", Kineto},
		{"[{}]", Kineto},
		{"SQLite format 3\x00 and more", NSys},
		{"SQLite format", ""},
		{"", ""},
		{"\x1f", ""},
		{"hello", ""},
	} {
		if got := SniffFormat([]byte(tc.head)); got != tc.want {
			t.Errorf("SniffFormat(%q) = %q, want %q", tc.head, got, tc.want)
		}
	}
	if !IsGzip([]byte{0x1f, 0x8b}) || IsGzip([]byte{0x1f}) {
		t.Error("IsGzip")
	}
}
