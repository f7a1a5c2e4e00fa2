package tokenizer

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// testdataDir is the shared tokenizer test data, relative to this package.
const testdataDir = "../../shared/testdata/tokenizers"

func needTestdata(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(testdataDir); err != nil {
		t.Skipf("shared tokenizer test data absent: %v", err)
	}
}

// refCase is one reference string and its expected ids.
type refCase struct {
	text string
	ids  []int
}

const refSeparator = "\n__ggml_vocab_test__\n"

// readRefs parses a .inp/.out pair: cases end with the separator; each
// .out line is the ids of one case.
func readRefs(t testing.TB, base string) []refCase {
	t.Helper()
	inp, err := os.ReadFile(base + ".inp")
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(base + ".out")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for rest := string(inp); len(rest) > 0; {
		i := strings.Index(rest, refSeparator)
		if i < 0 {
			t.Fatalf("%s.inp: text after the last separator", base)
		}
		texts = append(texts, rest[:i])
		rest = rest[i+len(refSeparator):]
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(texts) {
		t.Fatalf("%s: %d cases, %d result lines", base, len(texts), len(lines))
	}
	cases := make([]refCase, len(texts))
	for i, line := range lines {
		cases[i].text = texts[i]
		for _, f := range strings.Fields(line) {
			id, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s.out line %d: %v", base, i+1, err)
			}
			cases[i].ids = append(cases[i].ids, id)
		}
	}
	return cases
}

// tokenizerFiles lists every tokenizer file with a reference pair.
func tokenizerFiles(t testing.TB) []string {
	needTestdata(t)
	hf, _ := filepath.Glob(filepath.Join(testdataDir, "hf", "*", "tokenizer.json"))
	gg, _ := filepath.Glob(filepath.Join(testdataDir, "gguf", "*.gguf"))
	files := append(hf, gg...)
	if len(files) == 0 {
		t.Skip("no tokenizer files in the shared test data")
	}
	return files
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*Tokenizer{}
)

// mustLoad loads a shared tokenizer once per test binary.
func mustLoad(t testing.TB, path string) *Tokenizer {
	t.Helper()
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if tok, ok := loaded[path]; ok {
		return tok
	}
	tok, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	loaded[path] = tok
	return tok
}

func TestReferences(t *testing.T) {
	for _, path := range tokenizerFiles(t) {
		name := strings.TrimPrefix(path, testdataDir+"/")
		t.Run(name, func(t *testing.T) {
			tok := mustLoad(t, path)
			cases := readRefs(t, path)
			ok := 0
			for i, c := range cases {
				got := tok.Encode(c.text)
				if slices.Equal(got, c.ids) || (len(got) == 0 && len(c.ids) == 0) {
					ok++
					continue
				}
				t.Errorf("case %d %q:\n got %v\nwant %v", i, c.text, got, c.ids)
			}
			t.Logf("%s: %d/%d reference cases exact", name, ok, len(cases))
		})
	}
}

func TestRoundTripByteLevel(t *testing.T) {
	for _, path := range tokenizerFiles(t) {
		tok := mustLoad(t, path)
		if tok.Kind() != ByteLevelBPE {
			continue
		}
		for _, c := range readRefs(t, path) {
			if got := tok.Decode(tok.Encode(c.text)); got != c.text {
				t.Errorf("%s: Decode(Encode(%q)) = %q", path, c.text, got)
			}
		}
	}
}
