package experiment

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// SyntaxError is one problem in an experiment file, at a line (0 when
// the problem is the whole file).
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// parser walks a YAML node tree, collecting every error with its line.
type parser struct {
	file string
	errs []error
	// noLoad is the runs mapping when it gives neither concurrency nor
	// rate (parse_trace.go settles it).
	noLoad *yaml.Node
}

// errorf records an error at n's line.
func (p *parser) errorf(n *yaml.Node, format string, a ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &SyntaxError{File: p.file, Line: line, Msg: fmt.Sprintf(format, a...)})
}

func (p *parser) err() error { return errors.Join(p.errs...) }

// yamlLine matches the line number yaml.v3 puts in its syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError turns a yaml.v3 parse error into a SyntaxError.
func yamlError(file string, err error) error {
	msg := strings.TrimSpace(err.Error())
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &SyntaxError{File: file, Line: line, Msg: "YAML: " + m[2]}
	}
	return &SyntaxError{File: file, Msg: strings.Replace(msg, "yaml: ", "YAML: ", 1)}
}

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// fields walks the mapping n (named where in messages): each key must be
// one of handlers and appear once; its value goes to its handler. It
// returns the key nodes seen, by key.
func (p *parser) fields(n *yaml.Node, where string, handlers map[string]func(*yaml.Node)) map[string]*yaml.Node {
	n = deref(n)
	seen := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s: want a mapping (key: value), got %s", where, describe(n))
		return seen
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		key := k.Value
		h, ok := handlers[key]
		switch {
		case k.Kind != yaml.ScalarNode:
			p.errorf(k, "%s: a key must be a plain name", where)
		case !ok:
			p.errorf(k, "%s: unknown key %q (want %s)", where, key, keyList(handlers))
		case seen[key] != nil:
			p.errorf(k, "%s: key %q given twice (first on line %d)", where, key, seen[key].Line)
		default:
			seen[key] = k
			h(v)
		}
	}
	return seen
}

// require reports each missing key of a mapping.
func (p *parser) require(n *yaml.Node, where string, seen map[string]*yaml.Node, keys ...string) {
	for _, k := range keys {
		if seen[k] == nil {
			p.errorf(n, "%s: missing %q", where, k)
		}
	}
}

// oneOf reports when not exactly one of keys is present; it returns the
// one present, or "".
func (p *parser) oneOf(n *yaml.Node, where string, seen map[string]*yaml.Node, keys ...string) string {
	var got []string
	for _, k := range keys {
		if seen[k] != nil {
			got = append(got, k)
		}
	}
	switch len(got) {
	case 1:
		return got[0]
	case 0:
		p.errorf(n, "%s: want one of %s", where, strings.Join(keys, ", "))
	default:
		p.errorf(seen[got[1]], "%s: give only one of %s", where, strings.Join(got, " and "))
	}
	return ""
}

func keyList(h map[string]func(*yaml.Node)) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// describe names a node's kind for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unexpected node"
}

// scalar reports whether n is a non-null scalar, recording an error if not.
func (p *parser) scalar(n *yaml.Node, where, want string) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.errorf(n, "%s: want %s, got %s", where, want, describe(n))
		return false
	}
	return true
}

// str reads a scalar as text (a number keeps its spelling).
func (p *parser) str(n *yaml.Node, where string) string {
	if !p.scalar(n, where, "a text value") {
		return ""
	}
	return n.Value
}

// nonEmpty reads a scalar that must not be blank.
func (p *parser) nonEmpty(n *yaml.Node, where string) string {
	if !p.scalar(n, where, "a text value") {
		return ""
	}
	if strings.TrimSpace(n.Value) == "" {
		p.errorf(n, "%s: must not be empty", where)
	}
	return n.Value
}

// integer reads an integer no smaller than min.
func (p *parser) integer(n *yaml.Node, where string, min int) int {
	if !p.scalar(n, where, "an integer") {
		return 0
	}
	var v int
	if n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		p.errorf(n, "%s: want an integer, got %q", where, n.Value)
		return 0
	}
	if v < min {
		p.errorf(n, "%s: must be >= %d, got %d", where, min, v)
	}
	return v
}

// bounded reads an integer from lo to hi.
func (p *parser) bounded(n *yaml.Node, where string, lo, hi int) int {
	v := p.integer(n, where, lo)
	if v > hi {
		p.errorf(n, "%s: must be <= %d, got %d", where, hi, v)
	}
	return v
}

// MaxDuration bounds every duration of an experiment file.
const MaxDuration = 24 * time.Hour

// number reads a finite number; positive demands > 0, else >= 0.
func (p *parser) number(n *yaml.Node, where string, positive bool) float64 {
	if !p.scalar(n, where, "a number") {
		return 0
	}
	var v float64
	t := n.ShortTag()
	if (t != "!!int" && t != "!!float") || n.Decode(&v) != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		p.errorf(n, "%s: want a number, got %q", where, n.Value)
		return 0
	}
	switch {
	case positive && v <= 0:
		p.errorf(n, "%s: must be > 0, got %s", where, n.Value)
	case v < 0:
		p.errorf(n, "%s: must be >= 0, got %s", where, n.Value)
	}
	return v
}

// boolean reads true or false.
func (p *parser) boolean(n *yaml.Node, where string) bool {
	var v bool
	if !p.scalar(n, where, "true or false") {
		return false
	}
	if n.ShortTag() != "!!bool" || n.Decode(&v) != nil {
		p.errorf(n, "%s: want true or false, got %q", where, n.Value)
	}
	return v
}

// duration reads a Go duration ("90s") or a number of seconds, from 0 to
// MaxDuration (checked before the conversion, which would overflow).
func (p *parser) duration(n *yaml.Node, where string) time.Duration {
	if !p.scalar(n, where, "a duration") {
		return 0
	}
	if t := n.ShortTag(); t == "!!int" || t == "!!float" {
		s := p.number(n, where, false)
		if s > MaxDuration.Seconds() {
			p.errorf(n, "%s: must be at most %s, got %s s", where, MaxDuration, n.Value)
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		p.errorf(n, "%s: want a duration such as 90s or 5m, got %q", where, n.Value)
		return 0
	}
	if d < 0 {
		p.errorf(n, "%s: must be >= 0, got %s", where, n.Value)
	}
	if d > MaxDuration {
		p.errorf(n, "%s: must be at most %s, got %s", where, MaxDuration, n.Value)
		return 0
	}
	return d
}

// list reads a sequence, or a single scalar as a list of one, calling
// item for each element.
func (p *parser) list(n *yaml.Node, where string, item func(i int, v *yaml.Node)) {
	switch n.Kind {
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			p.errorf(n, "%s: empty list", where)
		}
		for i, v := range n.Content {
			item(i, deref(v))
		}
	case yaml.ScalarNode:
		if p.scalar(n, where, "a list") {
			item(0, n)
		}
	default:
		p.errorf(n, "%s: want a list, got %s", where, describe(n))
	}
}

// stringMap reads a mapping of plain keys to text values.
func (p *parser) stringMap(n *yaml.Node, where string) map[string]string {
	out := map[string]string{}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s: want a mapping (key: value), got %s", where, describe(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if _, dup := out[k.Value]; dup {
			p.errorf(k, "%s: key %q given twice", where, k.Value)
		}
		out[k.Value] = p.str(v, where+"."+k.Value)
	}
	return out
}
