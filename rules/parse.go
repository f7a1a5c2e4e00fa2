package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ruleKeys are the keys a rule may have, in the order messages list them.
var ruleKeys = []string{"id", "region", "class", "pattern", "nvtx"}

var regionNames = func() []string {
	out := make([]string, len(Regions))
	for i, r := range Regions {
		out[i] = r.String()
	}
	return out
}()

// parser collects every problem of one file.
type parser struct {
	file string
	errs []*SyntaxError
}

func (p *parser) errorf(line int, format string, args ...any) {
	if line < 1 {
		line = 1
	}
	p.errs = append(p.errs, &SyntaxError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// yamlError turns a yaml.v3 error into a SyntaxError, keeping its line.
func (p *parser) yamlError(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := lineRE.FindStringSubmatchIndex(msg); m != nil {
		if n, e := strconv.Atoi(msg[m[2]:m[3]]); e == nil && n > 0 {
			line = n
		}
		msg = msg[:m[0]] + msg[m[1]:]
	}
	p.errorf(line, "not valid YAML: %s", msg)
}

// decode reads the single YAML document of data. ok is false when the
// problem has been recorded.
func (p *parser) decode(data []byte) (doc *yaml.Node, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			p.errorf(1, "not valid YAML: %v", r)
			doc, ok = nil, false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(1, `empty file: want a mapping with a "rules" list`)
			return nil, false
		}
		p.yamlError(err)
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errorf(extra.Line, "more than one YAML document; a rule file holds one")
		return nil, false
	} else if !errors.Is(err, io.EOF) {
		p.yamlError(err)
		return nil, false
	}
	return &n, true
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return "a scalar"
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// resolve follows aliases (bounded, since a Node tree from yaml.v3 may hold
// alias cycles only through anchors defined earlier).
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; i < 16 && n != nil && n.Kind == yaml.AliasNode; i++ {
		n = n.Alias
	}
	return n
}

func (p *parser) parse(data []byte) []Rule {
	doc, ok := p.decode(data)
	if !ok {
		return nil
	}
	top := doc
	if top.Kind == yaml.DocumentNode {
		if len(top.Content) == 0 {
			p.errorf(top.Line, `empty file: want a mapping with a "rules" list`)
			return nil
		}
		top = top.Content[0]
	}
	top = resolve(top)
	if top == nil || top.Kind != yaml.MappingNode {
		line := doc.Line
		if top != nil {
			line = top.Line
		}
		what := "nothing"
		if top != nil {
			what = kindName(top)
		}
		p.errorf(line, `want a mapping with a "rules" list at the top level, found %s`, what)
		return nil
	}
	var list *yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if first, dup := seen[k.Value]; dup {
			p.errorf(k.Line, "key %q given twice (first at line %d)", k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		if k.Value != "rules" {
			p.errorf(k.Line, `unknown top-level key %q (want "rules")`, k.Value)
			continue
		}
		list = v
	}
	if list == nil {
		if _, had := seen["rules"]; !had {
			p.errorf(top.Line, `no "rules" list`)
		}
		return nil
	}
	listNode := resolve(list)
	if listNode == nil || listNode.Kind != yaml.SequenceNode {
		what := "nothing"
		if listNode != nil {
			what = kindName(listNode)
		}
		p.errorf(list.Line, `"rules" must be a list of rules, found %s`, what)
		return nil
	}
	if len(listNode.Content) == 0 {
		p.errorf(list.Line, `no rules: the "rules" list is empty`)
		return nil
	}
	var out []Rule
	ids := map[string]int{}
	for i, item := range listNode.Content {
		r, ok := p.rule(i+1, item)
		if r.ID != "" {
			if first, dup := ids[r.ID]; dup {
				p.errorf(r.Line, "duplicate id %q (first at line %d)", r.ID, first)
				ok = false
			} else {
				ids[r.ID] = r.Line
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// rule checks one list item; pos is its 1-based position in the list.
// The returned Rule carries ID and Line even when ok is false, so that
// duplicate ids are still found.
func (p *parser) rule(pos int, item *yaml.Node) (Rule, bool) {
	n := resolve(item)
	if n == nil || n.Kind != yaml.MappingNode {
		what := "nothing"
		if n != nil {
			what = kindName(n)
		}
		p.errorf(item.Line, "rule %d: want a mapping with id, region and pattern or nvtx, found %s", pos, what)
		return Rule{}, false
	}
	r := Rule{File: p.file, Line: n.Line}
	f, ok := p.ruleFields(pos, n)
	name := fmt.Sprintf("rule %d", pos)
	if v := f.vals["id"]; v != nil {
		if !idRE.MatchString(v.Value) {
			p.errorf(v.Line, "rule %d: invalid id %q: use lower-case letters, digits, '.', '_' and '-'", pos, v.Value)
			ok = false
		} else {
			r.ID = v.Value
			name = fmt.Sprintf("rule %q", r.ID)
		}
	} else if f.missing("id") {
		p.errorf(n.Line, "rule %d: missing id", pos)
		ok = false
	}
	if v := f.vals["region"]; v != nil {
		reg, good := ParseRegion(v.Value)
		if !good {
			p.errorf(v.Line, "%s: unknown region %q (want %s)", name, v.Value, quoteList(regionNames))
			ok = false
		}
		r.Region = reg
	} else if f.missing("region") {
		p.errorf(n.Line, "%s: missing region", name)
		ok = false
	}
	if v := f.vals["class"]; v != nil {
		c, valid := ParseClass(v.Value)
		if !valid {
			p.errorf(v.Line, "%s: unknown class %q (want one of %s)", name, v.Value, quoteList(ClassNames()))
			ok = false
		}
		r.Class = c
	}
	if !p.rulePattern(&r, name, n, f) {
		ok = false
	}
	return r, ok
}

// fields are the keys of one rule mapping: the scalar values, the line of
// every key seen, and the keys whose value is null.
type fields struct {
	vals    map[string]*yaml.Node
	keyLine map[string]int
	nulls   map[string]bool
}

// missing reports whether key is absent or empty; a key with a bad value
// has been reported already.
func (f *fields) missing(key string) bool {
	_, had := f.keyLine[key]
	return !had || f.nulls[key]
}

// ruleFields collects the keys of the rule mapping n, reporting
// duplicate, unknown and non-string keys.
func (p *parser) ruleFields(pos int, n *yaml.Node) (*fields, bool) {
	f := &fields{vals: map[string]*yaml.Node{}, keyLine: map[string]int{}, nulls: map[string]bool{}}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		key := k.Value
		if first, dup := f.keyLine[key]; dup {
			p.errorf(k.Line, "rule %d: key %q given twice (first at line %d)", pos, key, first)
			ok = false
			continue
		}
		f.keyLine[key] = k.Line
		if !slices.Contains(ruleKeys, key) {
			p.errorf(k.Line, "rule %d: unknown key %q (allowed: %s)", pos, key, quoteList(ruleKeys))
			ok = false
			continue
		}
		if v == nil || v.Kind != yaml.ScalarNode {
			what := "nothing"
			line := k.Line
			if v != nil {
				what = kindName(v)
				line = v.Line
			}
			p.errorf(line, "rule %d: %s must be a string, found %s", pos, key, what)
			ok = false
			continue
		}
		if v.Tag == "!!null" {
			f.nulls[key] = true // treated as missing
			continue
		}
		f.vals[key] = v
	}
	return f, ok
}

// rulePattern compiles the rule's one pattern (a name pattern or an nvtx
// pattern) into r, reporting both, neither, empty and invalid patterns.
func (p *parser) rulePattern(r *Rule, name string, n *yaml.Node, f *fields) bool {
	pv, nv := f.vals["pattern"], f.vals["nvtx"]
	switch {
	case pv != nil && nv != nil:
		p.errorf(nv.Line, "%s: has both pattern and nvtx; give one", name)
		return false
	case pv == nil && nv == nil:
		if f.missing("pattern") && f.missing("nvtx") {
			p.errorf(n.Line, "%s: missing pattern (or nvtx)", name)
		}
		return false
	}
	key, v := "pattern", pv
	if nv != nil {
		key, v = "nvtx", nv
	}
	if v.Value == "" {
		p.errorf(v.Line, "%s: empty %s", name, key)
		return false
	}
	re, err := regexp.Compile(v.Value)
	if err != nil {
		p.errorf(v.Line, "%s: invalid %s: %v", name, key, err)
		return false
	}
	if key == "pattern" {
		r.Name = re
	} else {
		r.NVTX = re
	}
	return true
}
