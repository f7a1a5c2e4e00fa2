package experiment

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/servecmp/servecmp/benchmark/client"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/internal/infile"
)

// Defaults of the optional settings.
const (
	DefaultCheckRequests = 8
	DefaultRunCount      = 3
	DefaultAlpha         = 0.05
)

// Load reads and parses the experiment file at path.
func Load(path string) (*Experiment, error) {
	data, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses an experiment file's content; name is its path, used in
// messages and to resolve relative paths. The error joins one
// *SyntaxError per problem found.
func Parse(name string, data []byte) (*Experiment, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(name, err)
	}
	if len(doc.Content) == 0 {
		return nil, &SyntaxError{File: name, Msg: "empty experiment file"}
	}
	p := &parser{file: name}
	e := &Experiment{
		File: name, Dir: filepath.Dir(name), Alpha: DefaultAlpha,
		Check: Preflight{Requests: DefaultCheckRequests, OnMismatch: OnMismatchStop},
	}
	root := doc.Content[0]
	seen := p.fields(root, "experiment", map[string]func(*yaml.Node){
		"a":           func(n *yaml.Node) { e.A = p.engine(n, "a", e.Dir) },
		"b":           func(n *yaml.Node) { e.B = p.engine(n, "b", e.Dir) },
		"intentional": func(n *yaml.Node) { e.Intentional = p.intentional(n) },
		"workload":    func(n *yaml.Node) { e.Workload = p.workload(n, e.Dir) },
		"check":       func(n *yaml.Node) { e.Check = p.check(n, e.Check) },
		"sweep":       func(n *yaml.Node) { e.Sweep = p.sweep(n) },
		"runs":        func(n *yaml.Node) { e.Runs = p.runs(n) },
		"profile":     func(n *yaml.Node) { e.Profile = p.profile(n) },
		"slo":         func(n *yaml.Node) { e.SLO = p.slo(n) },
		"alpha": func(n *yaml.Node) {
			if e.Alpha = p.number(n, "alpha", true); e.Alpha >= 1 {
				p.errorf(n, "alpha: must be < 1, got %s", n.Value)
			}
		},
	})
	if root.Kind == yaml.MappingNode {
		for _, k := range []string{"a", "b"} {
			if seen[k] == nil {
				p.errorf(root, "missing engine %q", k)
			}
		}
		p.require(root, "experiment", seen, "workload", "runs")
		p.traceRuns(e, seen["runs"]) // parse_trace.go
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return e, nil
}

// engine reads engine a or b.
func (p *parser) engine(n *yaml.Node, side, dir string) Engine {
	var e Engine
	var launch *yaml.Node
	h := map[string]func(*yaml.Node){
		"url":    func(v *yaml.Node) { e.URL = client.TrimV1(p.httpURL(v, side+".url")) }, // an SDK's base_url works too
		"model":  func(v *yaml.Node) { e.Model = p.nonEmpty(v, side+".model") },
		"engine": func(v *yaml.Node) { e.Engine = p.name(v, side+".engine") },
		"extra":  func(v *yaml.Node) { e.Extra = p.stringMap(v, side+".extra") },
		"metrics_url": func(v *yaml.Node) {
			if e.MetricsURL = p.nonEmpty(v, side+".metrics_url"); e.MetricsURL != MetricsNone {
				e.MetricsURL = p.httpURL(v, side+".metrics_url")
			}
		},
		"launch":          func(v *yaml.Node) { launch = v },
		"gpu_metrics_url": func(v *yaml.Node) { e.GPUMetricsURLs = p.gpuURLs(v, side+".gpu_metrics_url") },
		"gpus":            func(v *yaml.Node) { e.GPUs = p.gpuSelection(v, side+".gpus") },
		"trace_dir": func(v *yaml.Node) {
			if e.TraceDir = p.nonEmpty(v, side+".trace_dir"); e.TraceDir != "" && !filepath.IsAbs(e.TraceDir) {
				e.TraceDir = filepath.Join(dir, e.TraceDir)
			}
		},
	}
	for _, k := range ContractFields {
		h[k] = func(v *yaml.Node) {
			if e.Manifest == nil {
				e.Manifest = map[string]string{}
			}
			if k == "gpu_count" {
				p.integer(v, side+"."+k, 0)
			}
			e.Manifest[k] = p.str(v, side+"."+k)
		}
	}
	seen := p.fields(n, side, h)
	if deref(n).Kind == yaml.MappingNode {
		p.require(n, side, seen, "url", "model")
	}
	for k := range e.Extra {
		if slices.Contains(ContractFields, k) || k == "launch" {
			p.errorf(n, "%s.extra: %q is not free-form (write it as %s.%s)", side, k, side, k)
		}
	}
	if launch != nil {
		e.Launch = p.launch(launch, side, e.URL)
	}
	p.checkGPU(n, side, &e)
	return e
}

// httpURL reads an http or https URL with a host.
func (p *parser) httpURL(n *yaml.Node, where string) string {
	s := p.nonEmpty(n, where)
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.errorf(n, "%s: want an http:// or https:// URL, got %q", where, s)
	}
	return s
}

// namePattern is what an engine name or an intentional field may be.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]*$`)

// name reads a plain word.
func (p *parser) name(n *yaml.Node, where string) string {
	s := p.nonEmpty(n, where)
	if s != "" && !namePattern.MatchString(s) {
		p.errorf(n, "%s: %q is not a plain name (letters, digits, _ . -)", where, s)
	}
	return s
}

// launch reads the three forms of launch; url is the engine's, for the
// default readiness URL.
func (p *parser) launch(n *yaml.Node, side, engineURL string) *Launch {
	where := side + ".launch"
	l := &Launch{ReadyTimeout: DefaultReadyTimeout, Grace: DefaultGrace}
	if engineURL != "" {
		l.ReadyURL = strings.TrimRight(engineURL, "/") + DefaultReadyPath
	}
	if n.Kind != yaml.MappingNode {
		l.Command = p.command(n, where)
		return l
	}
	seen := p.fields(n, where, map[string]func(*yaml.Node){
		"command":       func(v *yaml.Node) { l.Command = p.command(v, where+".command") },
		"ready_url":     func(v *yaml.Node) { l.ReadyURL = p.httpURL(v, where+".ready_url") },
		"ready_timeout": func(v *yaml.Node) { l.ReadyTimeout = p.duration(v, where+".ready_timeout") },
		"grace":         func(v *yaml.Node) { l.Grace = p.duration(v, where+".grace") },
	})
	p.require(n, where, seen, "command")
	if seen["ready_timeout"] != nil && l.ReadyTimeout == 0 {
		p.errorf(seen["ready_timeout"], "%s.ready_timeout: must be > 0", where)
	}
	return l
}

// command reads a command line or a list of words.
func (p *parser) command(n *yaml.Node, where string) []string {
	var words []string
	if n.Kind == yaml.SequenceNode {
		p.list(n, where, func(i int, v *yaml.Node) {
			words = append(words, p.str(v, fmt.Sprintf("%s[%d]", where, i)))
		})
	} else if s := p.nonEmpty(n, where); s != "" {
		var err error
		if words, err = SplitCommand(s); err != nil {
			p.errorf(n, "%s: %v", where, err)
		}
	}
	if len(words) > 0 && strings.TrimSpace(words[0]) == "" {
		p.errorf(n, "%s: the program name is empty", where)
	}
	return words
}

// intentional reads the declared differences.
func (p *parser) intentional(n *yaml.Node) []string {
	var out []string
	p.list(n, "intentional", func(i int, v *yaml.Node) {
		s := p.name(v, fmt.Sprintf("intentional[%d]", i))
		if slices.Contains(out, s) {
			p.errorf(v, "intentional: %q given twice", s)
		}
		out = append(out, s)
	})
	return out
}

// workload reads the workload: a file (resolved against dir, and which
// must exist) or the random generator's settings.
func (p *parser) workload(n *yaml.Node, dir string) Workload {
	var w Workload
	seen := p.fields(n, "workload", map[string]func(*yaml.Node){
		"file":   func(v *yaml.Node) { w.File = p.path(v, "workload.file", dir) },
		"random": func(v *yaml.Node) { w.Random = p.random(v, dir) },
		"trace":  func(v *yaml.Node) { w.Trace = p.trace(v, dir) }, // parse_trace.go
	})
	if deref(n).Kind == yaml.MappingNode {
		p.oneOf(n, "workload", seen, "file", "random", "trace")
	}
	return w
}

// random reads the generator's settings; a tokenizer path is resolved
// against dir.
func (p *parser) random(n *yaml.Node, dir string) *Random {
	r := &Random{Vocab: workload.DefaultVocab, Burstiness: 1, FixedLength: true, RequestSeeds: true}
	const w = "workload.random"
	length := func(v *yaml.Node, key string) string {
		s := p.nonEmpty(v, w+"."+key)
		if _, err := workload.ParseLength(s); s != "" && err != nil {
			p.errorf(v, "%s.%s: %v", w, key, err)
		}
		return s
	}
	seen := p.fields(n, w, map[string]func(*yaml.Node){
		"num":          func(v *yaml.Node) { r.Num = p.integer(v, w+".num", 1) },
		"input_len":    func(v *yaml.Node) { r.InputLen = length(v, "input_len") },
		"output_len":   func(v *yaml.Node) { r.OutputLen = length(v, "output_len") },
		"seed":         func(v *yaml.Node) { r.Seed = uint64(p.integer(v, w+".seed", 0)) },
		"vocab":        func(v *yaml.Node) { r.Vocab = p.integer(v, w+".vocab", 4) },
		"prefix_len":   func(v *yaml.Node) { r.PrefixLen = p.integer(v, w+".prefix_len", 0) },
		"fixed_length": func(v *yaml.Node) { r.FixedLength = p.boolean(v, w+".fixed_length") },
		"request_rate": func(v *yaml.Node) { r.RequestRate = p.number(v, w+".request_rate", false) },
		"burstiness":   func(v *yaml.Node) { r.Burstiness = p.number(v, w+".burstiness", true) },
		"temperature":  func(v *yaml.Node) { r.Temperature = p.number(v, w+".temperature", false) },
		"top_p": func(v *yaml.Node) {
			if x := p.number(v, w+".top_p", true); x <= 1 {
				r.TopP = &x
			} else {
				p.errorf(v, "%s.top_p: must be <= 1, got %s", w, v.Value)
			}
		},
		"top_k": func(v *yaml.Node) {
			x := p.integer(v, w+".top_k", -1)
			r.TopK = &x
		},
		"request_seeds": func(v *yaml.Node) { r.RequestSeeds = p.boolean(v, w+".request_seeds") },
		"tokenizer":     func(v *yaml.Node) { r.Tokenizer = p.path(v, w+".tokenizer", dir) },
		"prompt":        func(v *yaml.Node) { r.Prompt = p.choice(v, w+".prompt", PromptIDs, PromptText, PromptChat) },
	})
	if deref(n).Kind == yaml.MappingNode {
		p.require(n, w, seen, "num", "input_len", "output_len")
		p.promptForm(n, r)
	}
	if len(p.errs) == 0 {
		// The generator's own bounds (count, lengths, prefix, vocabulary,
		// rate), checked now rather than when the workload is made.
		plain := *r
		plain.Tokenizer = "" // the tokenizer is loaded when the workload is made
		if spec, err := plain.Spec(); err == nil {
			if err := spec.Validate(); err != nil {
				p.errorf(n, "%s: %v", w, strings.TrimPrefix(err.Error(), "random workload: "))
			}
		}
	}
	return r
}

// promptForm checks the random workload's prompt form against its
// tokenizer ("" is the default: chat with a tokenizer, ids without).
func (p *parser) promptForm(n *yaml.Node, r *Random) {
	switch {
	case r.Tokenizer == "" && (r.Prompt == PromptText || r.Prompt == PromptChat):
		p.errorf(n, "workload.random.prompt: %s prompts need workload.random.tokenizer (a tokenizer.json or GGUF file)", r.Prompt)
	case r.Tokenizer != "" && r.Prompt == PromptIDs:
		p.errorf(n, "workload.random.prompt: ids makes token-id prompts; workload.random.tokenizer applies to text or chat")
	}
}

// path reads a path that must name a readable file, resolved against dir.
func (p *parser) path(n *yaml.Node, where, dir string) string {
	f := p.nonEmpty(n, where)
	if f == "" {
		return ""
	}
	if !filepath.IsAbs(f) {
		f = filepath.Join(dir, f)
	}
	if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
		p.errorf(n, "%s: %s is not a readable file", where, f)
	}
	return f
}

// check reads the pre-flight check over its defaults.
func (p *parser) check(n *yaml.Node, c Preflight) Preflight {
	p.fields(n, "check", map[string]func(*yaml.Node){
		"requests": func(v *yaml.Node) { c.Requests = p.bounded(v, "check.requests", 1, MaxCheckRequests) },
		"on_mismatch": func(v *yaml.Node) {
			c.OnMismatch = p.choice(v, "check.on_mismatch", OnMismatchStop, OnMismatchContinue)
		},
	})
	return c
}

// choice reads one of a fixed set of words.
func (p *parser) choice(n *yaml.Node, where string, choices ...string) string {
	s := p.str(n, where)
	if s != "" && !slices.Contains(choices, s) {
		p.errorf(n, "%s: unknown value %q (want %s)", where, s, strings.Join(choices, " or "))
	}
	return s
}
