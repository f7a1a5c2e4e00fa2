package workload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"bad json", `{"id":"a","prompt":"x","max_tokens":1}` + "\n" + `{"id":`, "w.jsonl:2: invalid JSON"},
		{"unknown field", `{"id":"a","prompt":"x","max_tokens":1,"maxtokens":3}`, `w.jsonl:1: invalid JSON: unknown field "maxtokens"`},
		{"empty id", `{"id":"","prompt":"x","max_tokens":1}`, "w.jsonl:1: empty id"},
		{"no prompt", `{"id":"a","max_tokens":1}`, "w.jsonl:1: request \"a\": no prompt"},
		{"two prompts", `{"id":"a","prompt":"x","prompt_token_ids":[5],"max_tokens":1}`, "more than one prompt form"},
		{"zero max", `{"id":"a","prompt":"x","max_tokens":0}`, "max_tokens must be in [1, 16777216], got 0"},
		{"huge max", `{"id":"a","prompt":"x","max_tokens":100000000}`, "max_tokens must be in [1, 16777216], got 100000000"},
		{"dup id", `{"id":"a","prompt":"x","max_tokens":1}` + "\n\n" + `{"id":"a","prompt":"y","max_tokens":1}`, `w.jsonl:3: duplicate id "a" (first on line 1)`},
		{"input_len mismatch", `{"id":"a","prompt_token_ids":[5,6],"input_len":3,"max_tokens":1}`, "input_len 3 disagrees"},
		{"negative token", `{"id":"a","prompt_token_ids":[5,-6],"max_tokens":1}`, "negative"},
		{"bad top_p", `{"id":"a","prompt":"x","max_tokens":1,"sampling":{"top_p":1.5}}`, "top_p"},
		{"negative arrival", `{"id":"a","prompt":"x","max_tokens":1,"arrival_offset_s":-1}`, "arrival_offset_s"},
		{"far arrival", `{"id":"a","prompt":"x","max_tokens":1,"arrival_offset_s":5e9}`, "arrival_offset_s must be in [0, 86400] s, got 5e+09"},
		{"two values", `{"id":"a","prompt":"x","max_tokens":1} {}`, "more than one JSON value"},
		{"empty", "\n\n", "w.jsonl: no requests"},
		{"no role", `{"id":"a","messages":[{"content":"hi"}],"max_tokens":1}`, "no role"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("w.jsonl", []byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
		})
	}
}

func TestWriteLoadRoundTrip(t *testing.T) {
	reqs := []Request{
		{ID: "t", PromptTokens: []int{3, 4, 5}, InputLen: 3, MaxTokens: 8, FixedLength: true,
			Sampling: Sampling{Temperature: ptr(0.0)}},
		{ID: "x", Prompt: "a <b> & c", MaxTokens: 2, ArrivalOffsetS: ptr(1.25)},
		{ID: "c", Messages: []Message{{Role: "user", Content: "hi"}}, MaxTokens: 4,
			Sampling: Sampling{Temperature: ptr(0.7), TopP: ptr(0.9), TopK: ptr(50), Seed: ptr(int64(7))}},
	}
	path := filepath.Join(t.TempDir(), "w.jsonl")
	sha, err := WriteFile(path, reqs)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != sha {
		t.Errorf("WriteFile sha %s, file sha %s", sha, got)
	}
	if !bytes.Contains(data, []byte("a <b> & c")) {
		t.Errorf("HTML characters escaped: %s", data)
	}
	w, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.SHA256 != sha || w.Path != path || len(w.Requests) != 3 {
		t.Fatalf("loaded %+v", w)
	}
	var buf bytes.Buffer
	if err := Write(&buf, w.Requests); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("rewrite differs:\n%s\nvs\n%s", buf.Bytes(), data)
	}
	kinds := []Kind{KindTokens, KindText, KindChat}
	for i, r := range w.Requests {
		if r.Kind() != kinds[i] {
			t.Errorf("request %d kind %q, want %q", i, r.Kind(), kinds[i])
		}
	}
	// CRLF line ends and a missing final newline load the same requests.
	crlf := strings.ReplaceAll(strings.TrimSuffix(string(data), "\n"), "\n", "\r\n")
	w2, err := Parse("crlf", []byte(crlf))
	if err != nil || len(w2.Requests) != 3 || w2.SHA256 == w.SHA256 {
		t.Fatalf("crlf: %v %+v", err, w2)
	}
}

func TestWriteRejectsInvalid(t *testing.T) {
	var buf bytes.Buffer
	err := Write(&buf, []Request{{ID: "a", Prompt: "x", MaxTokens: 1}, {ID: "a", Prompt: "y", MaxTokens: 1}})
	if err == nil || !strings.Contains(err.Error(), "duplicate id") {
		t.Fatalf("err = %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes of an invalid workload", buf.Len())
	}
}

func TestParseLength(t *testing.T) {
	good := []string{"128", "1:1", "64:256", "normal:100,10", "lognormal:4.5,0.5", "exp:50"}
	for _, s := range good {
		l, err := ParseLength(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if l.String() != s {
			t.Errorf("String() = %q, want %q", l.String(), s)
		}
	}
	bad := []string{"", "0", "-3", "5:4", "0:4", "a:b", "normal:1", "normal:0,1", "exp:0", "exp:x", "lognormal:1,-1", "gauss:1,2", "1.5"}
	for _, s := range bad {
		if _, err := ParseLength(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestLengthSample(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rng, _ := ParseLength("10:12")
	seen := map[int]bool{}
	for range 1000 {
		v := rng.Sample(r)
		if v < 10 || v > 12 {
			t.Fatalf("range sample %d outside [10,12]", v)
		}
		seen[v] = true
	}
	if len(seen) != 3 {
		t.Errorf("range 10:12 hit %v, want all three values", seen)
	}
	for _, spec := range []string{"normal:2,50", "exp:1", "lognormal:0,3"} {
		l, _ := ParseLength(spec)
		sum := 0.0
		for range 5000 {
			v := l.Sample(r)
			if v < 1 {
				t.Fatalf("%s: sample %d < 1", spec, v)
			}
			sum += float64(v)
		}
		if spec == "exp:1" && math.Abs(sum/5000-1.3) > 0.3 { // clamped and rounded mean is about 1.3
			t.Errorf("exp:1 mean %.2f", sum/5000)
		}
	}
	n, _ := ParseLength("normal:1000,10")
	sum := 0.0
	for range 2000 {
		sum += float64(n.Sample(r))
	}
	if m := sum / 2000; math.Abs(m-1000) > 2 {
		t.Errorf("normal:1000,10 mean %.2f", m)
	}
}

func randomSpec() RandomSpec {
	in, _ := ParseLength("20:40")
	out, _ := ParseLength("normal:16,4")
	return RandomSpec{Num: 50, InputLen: in, OutputLen: out, Seed: 42, Vocab: 1000, PrefixLen: 8,
		FixedLength: true, Sampling: Sampling{Temperature: ptr(0.8)}, RequestSeeds: true, RequestRate: 10}
}

func TestRandomDeterministic(t *testing.T) {
	dir := t.TempDir()
	var shas []string
	for i := range 2 {
		reqs, err := Random(randomSpec())
		if err != nil {
			t.Fatal(err)
		}
		sha, err := WriteFile(filepath.Join(dir, "w"+string(rune('0'+i))), reqs)
		if err != nil {
			t.Fatal(err)
		}
		shas = append(shas, sha)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "w0"))
	b, _ := os.ReadFile(filepath.Join(dir, "w1"))
	if !bytes.Equal(a, b) || shas[0] != shas[1] {
		t.Fatal("same spec gave different files")
	}
	other := randomSpec()
	other.Seed = 43
	reqs, _ := Random(other)
	var buf bytes.Buffer
	if err := Write(&buf, reqs); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(buf.Bytes(), a) {
		t.Fatal("different seeds gave the same file")
	}
}

func TestRandomShape(t *testing.T) {
	spec := randomSpec()
	reqs, err := Random(spec)
	if err != nil {
		t.Fatal(err)
	}
	prefix := reqs[0].PromptTokens[:spec.PrefixLen]
	prev := -1.0
	seeds := map[int64]bool{}
	for _, r := range reqs {
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
		n := len(r.PromptTokens) - spec.PrefixLen
		if n < 20 || n > 40 || r.InputLen != len(r.PromptTokens) {
			t.Errorf("%s: %d random tokens, input_len %d", r.ID, n, r.InputLen)
		}
		if !equalInts(r.PromptTokens[:spec.PrefixLen], prefix) {
			t.Errorf("%s: prefix differs", r.ID)
		}
		for _, id := range r.PromptTokens {
			if id < FirstTokenID || id >= spec.Vocab {
				t.Fatalf("%s: token id %d outside [%d,%d)", r.ID, id, FirstTokenID, spec.Vocab)
			}
		}
		if r.ArrivalOffsetS == nil || *r.ArrivalOffsetS < prev {
			t.Fatalf("%s: arrival offsets not non-decreasing", r.ID)
		}
		prev = *r.ArrivalOffsetS
		if r.Sampling.Seed == nil || seeds[*r.Sampling.Seed] {
			t.Errorf("%s: missing or repeated sampling seed", r.ID)
		} else {
			seeds[*r.Sampling.Seed] = true
		}
		if !r.FixedLength {
			t.Errorf("%s: not fixed-length", r.ID)
		}
	}
	if reqs[0].ID != "r00" || reqs[49].ID != "r49" {
		t.Errorf("ids %s..%s", reqs[0].ID, reqs[49].ID)
	}
	// 50 arrivals at 10 req/s: last offset near 4.9 s.
	if prev < 2 || prev > 10 {
		t.Errorf("last arrival %.2f s, want about 4.9", prev)
	}
	// Adding a prefix or arrivals does not change the lengths.
	plain := spec
	plain.PrefixLen, plain.RequestRate = 0, 0
	reqs2, _ := Random(plain)
	for i := range reqs {
		if len(reqs2[i].PromptTokens)+spec.PrefixLen != len(reqs[i].PromptTokens) || reqs2[i].MaxTokens != reqs[i].MaxTokens {
			t.Fatalf("request %d: lengths changed with prefix/arrivals", i)
		}
	}
}

func TestRandomErrors(t *testing.T) {
	for name, mut := range map[string]func(*RandomSpec){
		"num":        func(s *RandomSpec) { s.Num = 0 },
		"vocab":      func(s *RandomSpec) { s.Vocab = 3 },
		"prefix":     func(s *RandomSpec) { s.PrefixLen = -1 },
		"rate":       func(s *RandomSpec) { s.RequestRate = math.Inf(1) },
		"burstiness": func(s *RandomSpec) { s.Burstiness = -1 },
		"no lengths": func(s *RandomSpec) { s.InputLen = Length{} },
	} {
		s := randomSpec()
		mut(&s)
		if _, err := Random(s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"id":"a","prompt":"x","max_tokens":1}`))
	f.Add([]byte(`{"id":"a","prompt_token_ids":[1,2],"max_tokens":3,"sampling":{"top_p":0.5}}` + "\n"))
	f.Add([]byte(`{"id":"a","messages":[{"role":"user","content":"x"}],"max_tokens":1,"arrival_offset_s":1e308}`))
	f.Add([]byte("\n{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse("f", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		if err := Validate(w.Requests); err != nil {
			t.Errorf("Parse accepted what Validate rejects: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, w.Requests); err != nil {
			t.Errorf("Write: %v", err)
		}
		if _, err := Parse("g", buf.Bytes()); err != nil {
			t.Errorf("re-parse: %v", err)
		}
	})
}

// TestRandomGolden pins the generator: a change in how random workloads
// are drawn changes every workload built from the same flags, so it must
// be deliberate (refresh with UPDATE_GOLDEN=1).
func TestRandomGolden(t *testing.T) {
	in, _ := ParseLength("4:8")
	out, _ := ParseLength("lognormal:2,0.5")
	reqs, err := Random(RandomSpec{Num: 5, InputLen: in, OutputLen: out, Seed: 2026, Vocab: 100, PrefixLen: 2,
		FixedLength: true, Sampling: Sampling{Temperature: ptr(1.0), TopK: ptr(5)}, RequestSeeds: true,
		RequestRate: 4, Burstiness: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, reqs); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "random.golden.jsonl")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("random workload changed:\ngot\n%s\nwant\n%s", buf.Bytes(), want)
	}
}
