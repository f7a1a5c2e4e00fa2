package chat

import "strings"

// method calls a string or dict method.
func (r *renderer) method(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	x, args := vals[0], vals[1:]
	name := e.val.(string)
	if s, ok := x.(string); ok {
		return r.stringMethod(e, name, s, args)
	}
	m, ok := x.(map[string]any)
	if !ok {
		if ns, isNS := x.(namespace); isNS {
			m, ok = map[string]any(ns), true
		}
	}
	if !ok {
		return nil, r.errorf(e.line, "%s has no method %s", typeName(x), name)
	}
	switch name {
	case "items":
		return items(m)
	case "keys":
		return iterate(m)
	case "values":
		var out []any
		for _, k := range sortedKeys(m) {
			out = append(out, m[k])
		}
		return out, nil
	case "get":
		if len(args) == 0 {
			return nil, r.errorf(e.line, "get needs a key")
		}
		if v, ok := m[str(args[0])]; ok {
			return v, nil
		}
		if len(args) > 1 {
			return args[1], nil
		}
		return nil, nil
	}
	return nil, r.errorf(e.line, "dict has no method %s", name)
}

func (r *renderer) stringMethod(e *expr, name, s string, args []any) (any, error) {
	arg := func(i int) (string, bool) {
		if i < len(args) {
			a, ok := args[i].(string)
			return a, ok
		}
		return "", false
	}
	a0, has0 := arg(0)
	switch name {
	case "strip", "lstrip", "rstrip":
		cut := pySpace
		if has0 {
			cut = a0
		}
		switch name {
		case "strip":
			return strings.Trim(s, cut), nil
		case "lstrip":
			return strings.TrimLeft(s, cut), nil
		}
		return strings.TrimRight(s, cut), nil
	case "lower":
		return strings.ToLower(s), nil
	case "upper":
		return strings.ToUpper(s), nil
	case "startswith", "endswith":
		if !has0 {
			return nil, r.errorf(e.line, "%s needs a string", name)
		}
		if name == "startswith" {
			return strings.HasPrefix(s, a0), nil
		}
		return strings.HasSuffix(s, a0), nil
	case "split":
		var parts []string
		if has0 {
			parts = strings.Split(s, a0)
		} else {
			parts = strings.Fields(s)
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	case "replace":
		a1, has1 := arg(1)
		if !has0 || !has1 {
			return nil, r.errorf(e.line, "replace needs two strings")
		}
		return strings.ReplaceAll(s, a0, a1), nil
	}
	return nil, r.errorf(e.line, "string has no method %s", name)
}
