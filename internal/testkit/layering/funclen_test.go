package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a function may span, its signature and
// closing brace included, outside tests and fixture builders.
const maxFuncLines = 80

// funcLenExempt are the fixture builders: code that writes test inputs
// and may run long.
var funcLenExempt = []string{"internal/testkit/nsystest", "internal/cmd/demogen", "internal/testkit/fixture"}

// funcLenPending are packages whose long functions are being split on
// another branch: they are listed with t.Log, not failed. Remove an
// entry once that work has landed.
var funcLenPending = []string{}

// longFunc is one function over maxFuncLines lines.
type longFunc struct {
	dir, at string // dir: the package directory, slash-separated
}

// longFuncs lists every function over maxFuncLines lines in the non-test
// Go files under r, sorted by position.
func longFuncs(t *testing.T, r string) []longFunc {
	var out []longFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != r && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.Contains(name, "fixture") {
			return nil
		}
		rel, _ := filepath.Rel(r, path)
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		if under(dir, funcLenExempt) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
				if n := end - start + 1; n > maxFuncLines {
					out = append(out, longFunc{dir, fmt.Sprintf("%s:%d: %s (%d lines)", rel, start, fd.Name.Name, n)})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// TestFuncLength fails when a function outside tests and fixture
// builders runs over maxFuncLines lines.
func TestFuncLength(t *testing.T) {
	for _, l := range longFuncs(t, root(t)) {
		if under(l.dir, funcLenPending) {
			t.Logf("pending: %s", l.at)
			continue
		}
		t.Errorf("%s: over %d lines; split it", l.at, maxFuncLines)
	}
}

// TestLongFuncsFinds checks the walk on a tree with one long function, a
// short one, a test file and a fixture builder.
func TestLongFuncsFinds(t *testing.T) {
	dir := t.TempDir()
	long := "package p\n\nfunc Long() {\n" + strings.Repeat("\t_ = 1\n", maxFuncLines-1) + "}\n\nfunc Short() {}\n"
	files := map[string]string{
		"p/p.go":                      long,
		"p/p_test.go":                 strings.ReplaceAll(long, "Long", "LongTest"),
		"p/fixture_build.go":          strings.ReplaceAll(long, "Long", "LongFixture"),
		"internal/cmd/demogen/gen.go": strings.ReplaceAll(long, "Long", "LongDemo"),
		"p/testdata/ignored/x.go":     long,
		"q/ok.go":                     "package q\n\nfunc Fine() {\n" + strings.Repeat("\t_ = 1\n", maxFuncLines-2) + "}\n",
	}
	for p, s := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := longFuncs(t, dir)
	if len(got) != 1 || got[0].dir != "p" || got[0].at != "p/p.go:3: Long (81 lines)" {
		t.Errorf("longFuncs = %+v, want only p/p.go:3: Long (81 lines)", got)
	}
}
