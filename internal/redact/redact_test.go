package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://host:8000", "http://host:8000"},
		{"http://user:pass@host:8000/v1", "http://[redacted]@host:8000/v1"},
		{"https://token@host", "https://[redacted]@host"},
		{"http://user:p%40ss@host", "http://[redacted]@host"},
		{"http://user:pass@[::1", "http://[redacted]@[::1"}, // does not parse
		{"user:pass@host:80", "[redacted]@host:80"},         // no scheme
		{"host:80/a@b", "host:80/a@b"},
		{"", ""},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct {
		in      string
		secrets []string
		want    string
	}{
		{`Post "http://alice:***@127.0.0.1:9/v1": refused`, nil, `Post "http://[redacted]@127.0.0.1:9/v1": refused`},
		{"key sk-abcdef echoed twice sk-abcdef", []string{"sk-abcdef"}, "key [redacted] echoed twice [redacted]"},
		{"a b c", []string{"", "a"}, "a b c"}, // too short to scrub
		{"GET http://h/metrics and https://u:p@h2/x", nil, "GET http://h/metrics and https://[redacted]@h2/x"},
	} {
		if got := Text(tc.in, tc.secrets...); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestClipScrubsFirst places a secret at every offset around the cut: no
// piece of it survives, and the result never exceeds the limit plus "…".
func TestClipScrubsFirst(t *testing.T) {
	const key, n = "sk-Q7fz9XwL2mRt", 40
	for off := range 80 {
		s := strings.Repeat("é", off/2) + strings.Repeat("x", off%2) + key + " tail"
		got := Clip(s, n, key)
		for i := 0; i+4 <= len(key); i++ {
			if strings.Contains(got, key[i:i+4]) {
				t.Fatalf("offset %d: %q leaks %q", off, got, key[i:i+4])
			}
		}
		if len(got) > n+len("…") || !utf8.ValidString(got) {
			t.Fatalf("offset %d: %q", off, got)
		}
	}
}
