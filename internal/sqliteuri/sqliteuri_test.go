package sqliteuri

import (
	"strings"
	"testing"
)

func TestFile(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/tmp/a.sqlite", "file:/tmp/a.sqlite"},
		{"/tmp/50%?#.sqlite", "file:/tmp/50%25%3F%23.sqlite"},
		{"/tmp/a\tb\x7f", "file:/tmp/a%09b%7F"},
	} {
		if got, err := File(c.in); err != nil || got != c.want {
			t.Errorf("File(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := File("/tmp/a\x00b"); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("NUL byte: %v", err)
	}
}
