package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestExitCodes checks that invocation errors, which cobra reports in its
// own words, exit 2 by their type, and failures of the work exit 1.
func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command prints help", nil, 2, "Usage:"},
		{"version", []string{"--version"}, 0, ""},
		{"unknown command", []string{"frobnicate"}, 2, "frobnicate"},
		{"unknown root flag", []string{"--frobnicate"}, 2, "frobnicate"},
		{"unknown subcommand flag", []string{"compare", "--frobnicate"}, 2, "frobnicate"},
		{"flag without value", []string{"compare", "--a"}, 2, "--a"},
		{"bad flag value", []string{"compare", "--alpha", "x"}, 2, "alpha"},
		{"too few args", []string{"analyze"}, 2, "arg"},
		{"too many args", []string{"rules", "show", "a", "b"}, 2, "arg"},
		{"required flag", []string{"workload", "random", "--num", "1", "--input-len", "1", "--output-len", "1"}, 2, "out"},
		{"usage error from RunE", []string{"compare", "--a", "x.json"}, 2, "--b"},
		{"failure", []string{"compare", "--a", "absent-a.json", "--b", "absent-b.json"}, 1, "absent-a.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, errb.String(), tc.code, tc.want)
			}
			if tc.code == 2 && !regexp.MustCompile(`\nRun 'servecmp( [a-z-]+)* --help' for usage.\n$`).MatchString(errb.String()) {
				t.Errorf("usage error without the usage hint: %q", errb.String())
			}
			if tc.code == 1 && strings.Count(errb.String(), "\n") != 1 {
				t.Errorf("failure not on one line: %q", errb.String())
			}
		})
	}
}

func TestWarnAfterData(t *testing.T) {
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb}
	e.warn("first", "second")
	if got := errb.String(); got != "servecmp: warning: first\nservecmp: warning: second\n" || out.Len() != 0 {
		t.Errorf("warn wrote stdout %q, stderr %q", out.String(), got)
	}
}
