package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The structural rules of reliability.md, checked on the source: one
// opener of inputs (internal/infile), one creator of outputs
// (internal/atomicfile), one HTTP client policy (internal/httppolicy). A
// new feature that opens, creates or sends any other way fails here, so
// it inherits the rules instead of re-deciding them.

// ruleCalls maps an import path and a selector to the package that alone
// may use it.
var ruleCalls = map[string]map[string]string{
	"os": {
		"Open": "internal/infile", "ReadFile": "internal/infile",
		"Create": "internal/atomicfile", "WriteFile": "internal/atomicfile", "OpenFile": "internal/atomicfile",
		"Mkdir": "internal/atomicfile", "MkdirAll": "internal/atomicfile", "MkdirTemp": "internal/atomicfile",
		"CreateTemp": "internal/atomicfile", "Rename": "internal/atomicfile", "Remove": "internal/atomicfile",
		"RemoveAll": "internal/atomicfile", "Symlink": "internal/atomicfile", "Link": "internal/atomicfile",
		"Truncate": "internal/atomicfile",
	},
	"net/http": {
		"Client": "internal/httppolicy", "Transport": "internal/httppolicy", "DefaultClient": "internal/httppolicy",
		"DefaultTransport": "internal/httppolicy", "Get": "internal/httppolicy", "Post": "internal/httppolicy",
		"Head": "internal/httppolicy", "PostForm": "internal/httppolicy",
	},
}

// ruleExempt are the packages the rules do not cover: the one places
// themselves and the fences (developer tools, test kits), which are not
// servecmp.
var ruleExempt = []string{"internal/infile", "internal/atomicfile", "internal/httppolicy", "internal/cmd/", "internal/testkit/"}

// ruleExceptions are uses outside the one places, each with its reason:
// "file selector" -> why.
var ruleExceptions = map[string]string{
	"internal/proctree/proctree_linux.go os.ReadFile": "/proc/PID/{environ,stat} of processes servecmp launched, not files a user named",
	"servesim/trace.go os.MkdirAll":                   "serve-sim's own trace folder (a test server); the traces in it go through atomicfile",
}

// TestOneOpenerCreatorClient fails on a call of a ruled function (an
// os file function, an HTTP client or transport) outside the package that
// holds its rule.
func TestOneOpenerCreatorClient(t *testing.T) {
	r := root(t)
	var bad []string
	used := map[string]bool{}
	err := filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || under(filepath.ToSlash(filepath.Dir(rel)), ruleExempt) {
			return nil
		}
		for _, use := range ruledUses(t, path) {
			key := rel + " " + use
			if _, ok := ruleExceptions[key]; ok {
				used[key] = true
				continue
			}
			bad = append(bad, key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(bad)
	for _, b := range slices.Compact(bad) {
		t.Errorf("%s: use the one place (internal/infile opens inputs, internal/atomicfile creates outputs, internal/httppolicy makes clients) or list the exception with its reason", b)
	}
	for key := range ruleExceptions {
		if !used[key] && !under(filepath.ToSlash(filepath.Dir(strings.Fields(key)[0])), ruleExempt) {
			t.Errorf("exception %q is no longer used: remove it", key)
		}
	}
}

// ruledUses lists the ruled selectors ("os.Open") a file uses.
func ruledUses(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	local := map[string]string{} // local name -> ruled import path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if _, ok := ruleCalls[p]; !ok {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		local[name] = p
	}
	// Types (http.Client, http.Transport) are ruled where a value is
	// built (a composite literal), not where one is passed around.
	built := map[*ast.SelectorExpr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if cl, ok := n.(*ast.CompositeLit); ok {
			if sel, ok := cl.Type.(*ast.SelectorExpr); ok {
				built[sel] = true
			}
		}
		return true
	})
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		p, ok := local[id.Name]
		if _, ruled := ruleCalls[p][sel.Sel.Name]; !ok || !ruled {
			return true
		}
		if ruledTypes[sel.Sel.Name] && !built[sel] {
			return true
		}
		out = append(out, id.Name+"."+sel.Sel.Name)
		return true
	})
	return out
}

// ruledTypes are the ruled selectors that name a type.
var ruledTypes = map[string]bool{"Client": true, "Transport": true}
