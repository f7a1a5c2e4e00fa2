package main

// TestDocExamples runs the examples of the README and of the manual's
// pages (docs/*.md) so that the documentation cannot drift from what
// servecmp does.
//
// The convention in README.md and docs/*.md:
//
//   - A fenced block whose info string starts with "console" is run; any
//     other block (```, ```sh, ```yaml) is not. Blocks that need a GPU, an
//     engine or files the pages do not make stay plain.
//   - In a console block, a line starting with "$ " is a command, continued
//     by lines while it ends in "\". The lines after it, up to the next
//     command or the end of the block, are the output the README shows.
//   - A command ending in "&" runs in the background until the test ends
//     (the test waits for its first output and for its --port-file). A
//     trailing "# exit N" says the command exits N; otherwise it must exit 0.
//   - Commands run in order, all blocks together, in one temporary
//     directory, as a reader following the pages would: README.md first,
//     then the pages in docPages, in that order. Later examples use the
//     files earlier ones made (wl.jsonl, a.url, r.json), so a page that
//     does says where they come from. A page of docs/ with console blocks
//     that docPages lacks fails the test. "testdata" there is the
//     repository's. The only shell the commands may use: words in single
//     or double quotes, $(cat FILE) and $PWD.
//   - The output shown is checked against the command's stdout followed by
//     its stderr: its lines must appear in that order, lines next to each
//     other in the README next to each other in the output; a line "..."
//     stands for lines left out. Lines are compared exactly, except in a
//     block tagged "console timing", where every run of digits is a
//     wildcard and runs of spaces count as one (timings and ports vary).
//   - Every warning a command prints ("servecmp: warning: ...") must be
//     shown, except two. The warning that the server metrics had too few
//     samples: the test runs serve-sim fast (it adds --decode-base 100us
//     --decode-per-seq 200us to every serve-sim command), so its runs are
//     shorter than the metrics interval, which the pages' are not. And the
//     warning that sends fell behind the schedule (a trace replay's, in
//     docs/traces.md), which depends on how busy the machine is.
//   - A failure names the page and line of the command (docs/check.md:24).
//
// golang.org/x/perf keeps benchstat's documentation true the same way.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// docPages are the pages of the manual whose console blocks run, in the
// order they run, after README.md's: each may use the files made by those
// before it (workload.md makes wl.jsonl, serve-sim.md starts the simulator
// at a.url, benchmark.md writes r.json, check.md check.json).
var docPages = []string{
	"docs/workload.md",
	"docs/serve-sim.md",
	"docs/benchmark.md",
	"docs/check.md",
	"docs/compare.md",
	"docs/analyze.md",
	"docs/traces.md",
}

// readmeCmd is one command of a console block and the output shown for it.
type readmeCmd struct {
	file       string // page, relative to the repository root
	line       int    // line of the command in file
	text       string
	background bool
	exit       int
	timing     bool
	want       []string
}

// readmeCommands extracts the console blocks' commands from one page,
// named file in errors and in the commands.
func readmeCommands(file, readme string) ([]readmeCmd, error) {
	var cmds []readmeCmd
	inBlock, timing := false, false
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case !inBlock && strings.HasPrefix(l, "```console"):
			inBlock, timing = true, slices.Contains(strings.Fields(l)[1:], "timing")
		case inBlock && strings.HasPrefix(l, "```"):
			inBlock = false
		case inBlock && strings.HasPrefix(l, "$ "):
			c := readmeCmd{file: file, line: i + 1, timing: timing}
			text := strings.TrimPrefix(l, "$ ")
			for strings.HasSuffix(text, `\`) && i+1 < len(lines) {
				i++
				text = strings.TrimSpace(strings.TrimSuffix(text, `\`)) + " " + strings.TrimSpace(lines[i])
			}
			if k := strings.Index(text, "# exit "); k >= 0 {
				n, err := strconv.Atoi(strings.TrimSpace(text[k+len("# exit "):]))
				if err != nil {
					return nil, fmt.Errorf("%s:%d: bad exit comment", file, c.line)
				}
				c.exit, text = n, text[:k]
			}
			text = strings.TrimSpace(text)
			if strings.HasSuffix(text, "&") {
				c.background, text = true, strings.TrimSpace(strings.TrimSuffix(text, "&"))
			}
			c.text = text
			cmds = append(cmds, c)
		case inBlock && len(cmds) > 0:
			cmds[len(cmds)-1].want = append(cmds[len(cmds)-1].want, l)
		}
	}
	if inBlock {
		return nil, fmt.Errorf("%s: a console block is not closed", file)
	}
	for i := range cmds {
		for len(cmds[i].want) > 0 && cmds[i].want[len(cmds[i].want)-1] == "" {
			cmds[i].want = cmds[i].want[:len(cmds[i].want)-1]
		}
	}
	return cmds, nil
}

// shellWords splits a command line as the README's reader's shell would:
// quotes, $(cat FILE) and $PWD, read in dir.
func shellWords(text, dir string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case ch == ' ' || ch == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
			continue
		case ch == '\'' || ch == '"':
			end := strings.IndexByte(text[i+1:], ch)
			if end < 0 {
				return nil, fmt.Errorf("unclosed quote in %q", text)
			}
			cur.WriteString(text[i+1 : i+1+end])
			i += end + 1
		case strings.HasPrefix(text[i:], "$(cat "):
			end := strings.IndexByte(text[i:], ')')
			if end < 0 {
				return nil, fmt.Errorf("unclosed $( in %q", text)
			}
			b, err := os.ReadFile(filepath.Join(dir, strings.TrimSpace(text[i+len("$(cat "):i+end])))
			if err != nil {
				return nil, err
			}
			cur.WriteString(strings.TrimSpace(string(b)))
			i += end
		case strings.HasPrefix(text[i:], "$PWD"):
			cur.WriteString(dir)
			i += len("$PWD") - 1
		case ch == '$' || ch == '|' || ch == ';' || ch == '>' || ch == '<' || ch == '*' || ch == '{':
			return nil, fmt.Errorf("shell syntax %q the test does not run in %q", ch, text)
		default:
			cur.WriteByte(ch)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

var (
	digitRun = regexp.MustCompile(`[0-9]+`)
	spaceRun = regexp.MustCompile(` +`)
)

// normLine is a line as compared: trailing spaces dropped and, in a timing
// block, digits and space runs made alike.
func normLine(l string, timing bool) string {
	l = strings.TrimRight(l, " ")
	if timing {
		l = spaceRun.ReplaceAllString(digitRun.ReplaceAllString(l, "0"), " ")
	}
	return l
}

// missingOutput returns the first group of want ("..."-separated runs of
// lines) that got does not hold in order, or nil.
func missingOutput(got string, want []string, timing bool) []string {
	var lines []string
	for _, l := range strings.Split(got, "\n") {
		lines = append(lines, normLine(l, timing))
	}
	var groups [][]string
	cur := []string{}
	for _, w := range want {
		if strings.TrimSpace(w) == "..." {
			groups, cur = append(groups, cur), []string{}
			continue
		}
		cur = append(cur, normLine(w, timing))
	}
	groups = append(groups, cur)
	at := 0
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		found := -1
		for i := at; i+len(g) <= len(lines) && found < 0; i++ {
			match := true
			for k := range g {
				if lines[i+k] != g[k] {
					match = false
					break
				}
			}
			if match {
				found = i
			}
		}
		if found < 0 {
			return g
		}
		at = found + len(g)
	}
	return nil
}

// unshownWarnings returns the warnings in got that want does not show.
func unshownWarnings(got string, want []string, timing bool) []string {
	shown := map[string]bool{}
	for _, w := range want {
		shown[normLine(w, timing)] = true
	}
	var out []string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "servecmp: warning: ") && !strings.Contains(l, "server metrics: only ") && !strings.Contains(l, "sends fell behind the schedule") && !shown[normLine(l, timing)] {
			out = append(out, l)
		}
	}
	return out
}

// lockedBuffer is a bytes.Buffer written by a background command.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// runBackground starts args in the background until the test ends and
// waits for its first output and its --port-file.
func runBackground(t *testing.T, args []string, dir string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, &out, &out) }()
	t.Cleanup(func() { cancel(); <-done })
	portFile := ""
	for i, a := range args {
		if a == "--port-file" && i+1 < len(args) {
			portFile = filepath.Join(dir, args[i+1])
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		_, err := os.Stat(portFile)
		if out.String() != "" && (portFile == "" || err == nil) {
			return out.String()
		}
		select {
		case code := <-done:
			t.Fatalf("%v exited %d in the background: %s", args, code, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v: not ready after 10 s: %s", args, out.String())
		}
	}
}

// docCommands reads the console commands of README.md and of docPages, in
// that order, from the repository at repo. It fails when a page of docs/
// has console blocks but is not in docPages, so that none is skipped.
func docCommands(t *testing.T, repo string) []readmeCmd {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []readmeCmd
	for _, page := range append([]string{"README.md"}, docPages...) {
		b, err := os.ReadFile(filepath.Join(repo, page))
		if err != nil {
			t.Fatalf("%v (docPages in readme_test.go lists the pages whose examples run)", err)
		}
		c, err := readmeCommands(page, string(b))
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c...)
	}
	for _, p := range pages {
		rel := filepath.ToSlash(strings.TrimPrefix(p, repo+string(filepath.Separator)))
		if slices.Contains(docPages, rel) {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := readmeCommands(rel, string(b)); err != nil || len(c) > 0 {
			t.Errorf("%s has console examples but is not in docPages (readme_test.go): add it after the pages whose files it uses", rel)
		}
	}
	return cmds
}

func TestDocExamples(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds := docCommands(t, repo)
	if len(cmds) < 20 {
		t.Fatalf("README.md and docPages hold %d console commands; the convention (readme_test.go) seems lost", len(cmds))
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(repo, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range cmds {
		at := fmt.Sprintf("%s:%d", c.file, c.line)
		words, err := shellWords(c.text, dir)
		if err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		if len(words) == 0 || words[0] != "servecmp" {
			t.Fatalf("%s: a console command must run servecmp: %q", at, c.text)
		}
		args := words[1:]
		if args[0] == "serve-sim" {
			args = append(args, "--decode-base", "100us", "--decode-per-seq", "200us")
		}
		for attempt := 1; ; attempt++ {
			problems := runDocCommand(t, c, args, dir)
			if len(problems) == 0 {
				break
			}
			// A timing block's figures depend on the machine's load (a
			// sweep on a busy machine may not saturate where the page
			// says): such a command gets two more tries before it fails.
			if !c.timing || c.background || attempt == 3 {
				for _, p := range problems {
					t.Errorf("%s: %s: %s", at, c.text, p)
				}
				break
			}
			t.Logf("%s: %s: attempt %d differs from the page; running it again", at, c.text, attempt)
		}
	}
}

// runDocCommand runs one page command in dir and returns what differs
// from the page: the exit code, missing lines, unshown warnings.
func runDocCommand(t *testing.T, c readmeCmd, args []string, dir string) []string {
	var got string
	code := 0
	if c.background {
		got = runBackground(t, args, dir)
	} else {
		var stdout, stderr bytes.Buffer
		code = run(context.Background(), args, &stdout, &stderr)
		got = stdout.String() + stderr.String()
	}
	var problems []string
	if code != c.exit {
		problems = append(problems, fmt.Sprintf("exit %d, the page says %d\n%s", code, c.exit, got))
	}
	if miss := missingOutput(got, c.want, c.timing); miss != nil {
		problems = append(problems, fmt.Sprintf("the output lacks the page's lines\n%s\n--- got:\n%s", strings.Join(miss, "\n"), got))
	}
	if w := unshownWarnings(got, c.want, c.timing); len(w) > 0 {
		problems = append(problems, fmt.Sprintf("warnings the page does not show:\n%s", strings.Join(w, "\n")))
	}
	return problems
}

func TestReadmeCommands(t *testing.T) {
	md := "text\n```\n$ servecmp not-run\n```\n```console timing\n$ servecmp a \\\n    --b c &\nout 1\n\n$ servecmp d  # exit 3\nerr\n```\n```console\n$ servecmp e\n```\n"
	got, err := readmeCommands("docs/x.md", md)
	if err != nil {
		t.Fatal(err)
	}
	want := []readmeCmd{
		{file: "docs/x.md", line: 6, text: "servecmp a --b c", background: true, timing: true, want: []string{"out 1"}},
		{file: "docs/x.md", line: 10, text: "servecmp d", exit: 3, timing: true, want: []string{"err"}},
		{file: "docs/x.md", line: 14, text: "servecmp e"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("readmeCommands =\n%+v, want\n%+v", got, want)
	}
	if _, err := readmeCommands("docs/x.md", "```console\n$ servecmp f\n"); err == nil || !strings.Contains(err.Error(), "docs/x.md") {
		t.Errorf("an unclosed console block: err = %v, want one naming the page", err)
	}
}

func TestShellWords(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.url"), []byte("http://h:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`servecmp x --url $(cat a.url) --d $PWD/t`, "[servecmp x --url http://h:1 --d " + dir + "/t]"},
		{`servecmp 'a b' "c d"e`, "[servecmp a b c de]"},
		{`servecmp x | head`, "error"},
		{`servecmp --a b{1,2}.json`, "error"},
	} {
		w, err := shellWords(tc.in, dir)
		got := fmt.Sprint(w)
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("shellWords(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestMissingOutput(t *testing.T) {
	got := "head\nrow 1  12.5 ms\nrow 2  3.0 ms\nmiddle\nservecmp: warning: w 97.4%\n"
	for _, tc := range []struct {
		name   string
		want   []string
		timing bool
		ok     bool
	}{
		{"exact run", []string{"row 1  12.5 ms", "row 2  3.0 ms"}, false, true},
		{"a number differs", []string{"row 1  12.6 ms"}, false, false},
		{"timing: numbers and widths vary", []string{"row 1 99.0 ms", "row 2 1.25 ms"}, true, true},
		{"timing: words still count", []string{"row 1 99.0 s"}, true, false},
		{"gap needs ...", []string{"head", "middle"}, false, false},
		{"gap with ...", []string{"head", "...", "middle", "servecmp: warning: w 97.4%"}, false, true},
		{"order counts", []string{"middle", "...", "head"}, false, false},
	} {
		if miss := missingOutput(got, tc.want, tc.timing); (miss == nil) != tc.ok {
			t.Errorf("%s: missing %q, want ok %v", tc.name, miss, tc.ok)
		}
	}
	if w := unshownWarnings(got, []string{"servecmp: warning: w 90.0%"}, true); len(w) != 0 {
		t.Errorf("timing block: warning counted as not shown: %q", w)
	}
	if w := unshownWarnings(got, nil, false); len(w) != 1 {
		t.Errorf("an unshown warning was not found: %q", w)
	}
}
