package chat

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

const pySpace = " \t\n\r\v\f"

func (r *renderer) filter(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	x, args := vals[0], vals[1:]
	name := e.val.(string)
	switch name {
	case "trim":
		return strings.Trim(str(x), pySpace), nil
	case "lower":
		return strings.ToLower(str(x)), nil
	case "upper":
		return strings.ToUpper(str(x)), nil
	case "string":
		return str(x), nil
	case "length", "count":
		return length(x)
	case "default":
		if _, undef := x.(undefined); undef && len(args) > 0 {
			return args[0], nil
		}
		return x, nil
	case "first", "last":
		items, err := iterate(x)
		if err != nil || len(items) == 0 {
			return undefined{}, err
		}
		if name == "first" {
			return items[0], nil
		}
		return items[len(items)-1], nil
	case "join":
		return r.join(e, x, args)
	case "items":
		return items(x)
	case "tojson":
		return r.tojson(e, x)
	case "reject", "select":
		return r.selectFilter(e, x, args, name == "select")
	}
	return nil, r.errorf(e.line, "unsupported filter %q", name)
}

func length(x any) (any, error) {
	switch x := x.(type) {
	case string:
		return utf8.RuneCountInString(x), nil
	case []any:
		return len(x), nil
	case map[string]any:
		return len(x), nil
	case undefined:
		return 0, nil
	}
	return nil, fmt.Errorf("object of type %s has no length", typeName(x))
}

func (r *renderer) join(e *expr, x any, args []any) (any, error) {
	items, err := iterate(x)
	if err != nil {
		return nil, r.errorf(e.line, "join: %v", err)
	}
	sep := ""
	if len(args) > 0 {
		sep = str(args[0])
	}
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = str(it)
	}
	return strings.Join(parts, sep), nil
}

func items(x any) (any, error) {
	m, ok := x.(map[string]any)
	if !ok {
		if ns, isNS := x.(namespace); isNS {
			m, ok = map[string]any(ns), true
		}
	}
	if !ok {
		return nil, fmt.Errorf("items: %s is not a dict", typeName(x))
	}
	out := make([]any, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, []any{k, m[k]})
	}
	return out, nil
}

// tojson renders JSON as Python's json.dumps does by default (", " and
// ": " separators, non-ASCII kept); indent=N is supported.
func (r *renderer) tojson(e *expr, x any) (any, error) {
	indent := ""
	if ie, ok := e.kw["indent"]; ok {
		v, err := r.eval(ie)
		n, isInt := v.(int)
		if err != nil || !isInt {
			return nil, r.errorf(e.line, "tojson: indent must be an integer")
		}
		indent = strings.Repeat(" ", n)
	}
	var b strings.Builder
	if err := writeJSON(&b, x, indent, ""); err != nil {
		return nil, r.errorf(e.line, "tojson: %v", err)
	}
	return b.String(), nil
}

func writeJSON(b *strings.Builder, x any, indent, cur string) error {
	open := func(c string) string {
		if indent == "" {
			return c
		}
		return c + "\n" + cur + indent
	}
	sep := ", "
	if indent != "" {
		sep = ",\n" + cur + indent
	}
	closeWith := func(c string) string {
		if indent == "" {
			return c
		}
		return "\n" + cur + c
	}
	switch v := x.(type) {
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString(open("["))
		for i, it := range v {
			if i > 0 {
				b.WriteString(sep)
			}
			if err := writeJSON(b, it, indent, cur+indent); err != nil {
				return err
			}
		}
		b.WriteString(closeWith("]"))
	case map[string]any:
		if len(v) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString(open("{"))
		for i, k := range sortedKeys(v) {
			if i > 0 {
				b.WriteString(sep)
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			if err := writeJSON(b, v[k], indent, cur+indent); err != nil {
				return err
			}
		}
		b.WriteString(closeWith("}"))
	case string:
		writeJSONString(b, v)
	case nil, undefined:
		b.WriteString("null")
	case bool:
		b.WriteString(map[bool]string{true: "true", false: "false"}[v])
	case int, float64:
		b.WriteString(str(v))
	default:
		return fmt.Errorf("cannot encode %s", typeName(x))
	}
	return nil
}

func writeJSONString(b *strings.Builder, s string) {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
}

// selectFilter is select/reject with a test name and optional argument.
func (r *renderer) selectFilter(e *expr, x any, args []any, keep bool) (any, error) {
	list, err := iterate(x)
	if err != nil {
		return nil, r.errorf(e.line, "%v", err)
	}
	if len(args) == 0 {
		return nil, r.errorf(e.line, "select/reject needs a test name")
	}
	name := str(args[0])
	if !knownTests[name] {
		return nil, r.errorf(e.line, "unsupported test %q", name)
	}
	var out []any
	for _, it := range list {
		ok, err := runTest(name, it, args[1:])
		if err != nil {
			return nil, r.errorf(e.line, "%v", err)
		}
		if ok == keep {
			out = append(out, it)
		}
	}
	return out, nil
}

func (r *renderer) test(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	ok, err := runTest(e.val.(string), vals[0], vals[1:])
	if err != nil {
		return nil, r.errorf(e.line, "%v", err)
	}
	return ok != e.not, nil
}

func runTest(name string, x any, args []any) (bool, error) {
	switch name {
	case "defined":
		_, undef := x.(undefined)
		return !undef, nil
	case "undefined":
		_, undef := x.(undefined)
		return undef, nil
	case "none":
		return x == nil, nil
	case "string":
		_, ok := x.(string)
		return ok, nil
	case "number":
		_, isInt := x.(int)
		_, isFloat := x.(float64)
		return isInt || isFloat, nil
	case "integer":
		_, ok := x.(int)
		return ok, nil
	case "boolean":
		_, ok := x.(bool)
		return ok, nil
	case "mapping":
		_, ok := x.(map[string]any)
		_, isNS := x.(namespace)
		return ok || isNS, nil
	case "iterable", "sequence":
		switch x.(type) {
		case string, []any, map[string]any:
			return true, nil
		}
		return false, nil
	case "true", "false":
		b, ok := x.(bool)
		return ok && b == (name == "true"), nil
	case "equalto", "eq":
		if len(args) != 1 {
			return false, fmt.Errorf("test %s needs one argument", name)
		}
		return equal(x, args[0]), nil
	}
	return false, fmt.Errorf("unsupported test %q", name)
}

func (r *renderer) call(e *expr) (any, error) {
	args, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	switch e.val.(string) {
	case "raise_exception":
		msg := ""
		if len(args) > 0 {
			msg = str(args[0])
		}
		return nil, fmt.Errorf("chat template %s:%d: %w: %s", r.name, e.line, errRaised, msg)
	case "namespace":
		ns := namespace{}
		for k, ve := range e.kw {
			v, err := r.eval(ve)
			if err != nil {
				return nil, err
			}
			ns[k] = v
		}
		return ns, nil
	case "range":
		n, ok := 0, len(args) == 1
		if ok {
			n, ok = args[0].(int)
		}
		if !ok || n > 1<<20 {
			return nil, r.errorf(e.line, "range takes one integer up to 2^20")
		}
		out := make([]any, max(n, 0))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	return nil, r.errorf(e.line, "unsupported function %q", e.val)
}
