package chat

import (
	"errors"
	"fmt"
	"strings"
)

// Message is one chat turn.
type Message struct {
	Role    string
	Content string
}

// Options are the variables a template sees besides messages.
type Options struct {
	AddGenerationPrompt bool
	BOSToken, EOSToken  string
	Vars                map[string]any // extra variables (tools, …)
}

// undefined is the value of a missing name or attribute.
type undefined struct{}

// namespace is the mutable object made by namespace(…).
type namespace map[string]any

// errRaised marks raise_exception.
var errRaised = errors.New("template raised an exception")

// Render produces the prompt text for msgs.
func (t *Template) Render(msgs []Message, opt Options) (string, error) {
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	global := map[string]any{
		"messages":              list,
		"add_generation_prompt": opt.AddGenerationPrompt,
		"bos_token":             opt.BOSToken,
		"eos_token":             opt.EOSToken,
	}
	for k, v := range opt.Vars {
		global[k] = v
	}
	r := &renderer{name: t.name, scopes: []map[string]any{global}}
	if err := r.nodes(t.body); err != nil {
		return "", err
	}
	return r.out.String(), nil
}

type renderer struct {
	name   string
	scopes []map[string]any
	out    strings.Builder
	line   int
}

func (r *renderer) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("chat template %s:%d: %s", r.name, line, fmt.Sprintf(format, args...))
}

func (r *renderer) lookup(name string) any {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if v, ok := r.scopes[i][name]; ok {
			return v
		}
	}
	return undefined{}
}

func (r *renderer) nodes(ns []node) error {
	for _, n := range ns {
		if err := r.node(n); err != nil {
			return err
		}
	}
	return nil
}

func (r *renderer) node(n node) error {
	switch n := n.(type) {
	case textNode:
		r.out.WriteString(n.text)
	case outputNode:
		v, err := r.eval(n.e)
		if err != nil {
			return err
		}
		r.out.WriteString(str(v))
	case ifNode:
		for i, c := range n.conds {
			v, err := r.eval(c)
			if err != nil {
				return err
			}
			if truthy(v) {
				return r.nodes(n.bodies[i])
			}
		}
		if len(n.bodies) > len(n.conds) {
			return r.nodes(n.bodies[len(n.conds)])
		}
	case forNode:
		return r.forLoop(n)
	case setNode:
		return r.set(n)
	}
	return nil
}

func (r *renderer) set(n setNode) error {
	v, err := r.eval(n.e)
	if err != nil {
		return err
	}
	if n.attr == "" {
		r.scopes[len(r.scopes)-1][n.name] = v
		return nil
	}
	ns, ok := r.lookup(n.name).(namespace)
	if !ok {
		return r.errorf(n.line, "set %s.%s: %s is not a namespace", n.name, n.attr, n.name)
	}
	ns[n.attr] = v
	return nil
}

func (r *renderer) forLoop(n forNode) error {
	v, err := r.eval(n.iter)
	if err != nil {
		return err
	}
	items, err := iterate(v)
	if err != nil {
		return r.errorf(n.line, "for: %v", err)
	}
	if len(items) == 0 {
		return r.nodes(n.elseBody)
	}
	for i, it := range items {
		scope := map[string]any{"loop": map[string]any{
			"index": i + 1, "index0": i, "first": i == 0, "last": i == len(items)-1,
			"length": len(items), "revindex": len(items) - i, "revindex0": len(items) - i - 1,
		}}
		if len(n.vars) == 1 {
			scope[n.vars[0]] = it
		} else {
			pair, ok := it.([]any)
			if !ok || len(pair) != 2 {
				return r.errorf(n.line, "for %s, %s: item is not a pair", n.vars[0], n.vars[1])
			}
			scope[n.vars[0]], scope[n.vars[1]] = pair[0], pair[1]
		}
		r.scopes = append(r.scopes, scope)
		err := r.nodes(n.body)
		r.scopes = r.scopes[:len(r.scopes)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

// iterate lists the items of a list, the keys of a map or the characters
// of a string; undefined and none iterate as empty.
func iterate(v any) ([]any, error) {
	switch v := v.(type) {
	case []any:
		return v, nil
	case map[string]any:
		keys := make([]any, 0, len(v))
		for _, k := range sortedKeys(v) {
			keys = append(keys, k)
		}
		return keys, nil
	case string:
		var out []any
		for _, c := range v {
			out = append(out, string(c))
		}
		return out, nil
	case undefined, nil:
		return nil, nil
	}
	return nil, fmt.Errorf("%s is not iterable", typeName(v))
}
