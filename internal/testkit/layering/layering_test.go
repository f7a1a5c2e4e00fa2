package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/servecmp/servecmp"

// cmdBudget is the most non-test lines cmd/servecmp may hold: it parses
// flags, calls one function per command and picks an encoder.
const cmdBudget = 1000

// driverAllowed may import the SQLite driver: input opens files with it
// and hands the fast path its symbols; nsystest writes fixture exports.
var driverAllowed = []string{"input", "nsys/internal/fastscan", "internal/testkit/nsystest"}

const driver = "github.com/mattn/go-sqlite3"

// cobraAllowed may import cobra: the CLI and its exit-code plumbing.
var cobraAllowed = []string{"cmd/"}

const cobra = "github.com/spf13/cobra"

// root is the module root, three levels up from this package.
func root(t *testing.T) string {
	r, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	return r
}

func under(pkg string, prefixes []string) bool {
	for _, p := range prefixes {
		if pkg == strings.TrimSuffix(p, "/") || strings.HasPrefix(pkg, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// imports maps each package directory (relative, slash-separated) to the
// imports of its non-test files.
func imports(t *testing.T, r string) map[string][]string {
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != r && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			out[rel] = append(out[rel], p)
		}
		if _, ok := out[rel]; !ok {
			out[rel] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestThirdPartyImports fails when cobra is imported outside the cmd
// tree or the SQLite driver outside the packages that open exports.
func TestThirdPartyImports(t *testing.T) {
	for pkg, ims := range imports(t, root(t)) {
		for _, im := range ims {
			if im == cobra && !under(pkg, cobraAllowed) {
				t.Errorf("%s imports cobra: only %v may", pkg, cobraAllowed)
			}
			if im == driver && !under(pkg, driverAllowed) {
				t.Errorf("%s imports the SQLite driver: only %v may", pkg, driverAllowed)
			}
		}
	}
}

// TestCmdBudget fails when cmd/servecmp grows past its budget.
func TestCmdBudget(t *testing.T) {
	dir := filepath.Join(root(t), "cmd", "servecmp")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(string(b), "\n")
	}
	t.Logf("cmd/servecmp: %d non-test lines (budget %d)", n, cmdBudget)
	if n > cmdBudget {
		t.Errorf("cmd/servecmp has %d non-test lines, over its budget of %d: move the work into a package below it", n, cmdBudget)
	}
}
