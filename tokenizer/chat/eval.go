package chat

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

func (r *renderer) eval(e *expr) (any, error) {
	switch e.op {
	case "lit":
		return e.val, nil
	case "name":
		return r.lookup(e.val.(string)), nil
	case "attr":
		x, err := r.eval(e.args[0])
		if err != nil {
			return nil, err
		}
		return attr(x, e.val.(string)), nil
	case "index":
		return r.index(e)
	case "slice":
		return r.slice(e)
	case "not":
		x, err := r.eval(e.args[0])
		return !truthy(x), err
	case "neg":
		x, err := r.eval(e.args[0])
		if err != nil {
			return nil, err
		}
		return arith("-", 0, x, r, e)
	case "and", "or":
		return r.logic(e)
	case "cond":
		c, err := r.eval(e.args[0])
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return r.eval(e.args[1])
		}
		return r.eval(e.args[2])
	case "bin":
		return r.binary(e)
	case "list", "dict":
		return r.collection(e)
	case "filter":
		return r.filter(e)
	case "test":
		return r.test(e)
	case "call":
		return r.call(e)
	case "method":
		return r.method(e)
	}
	return nil, r.errorf(e.line, "unknown expression %q", e.op)
}

func (r *renderer) evalAll(es []*expr) ([]any, error) {
	out := make([]any, len(es))
	for i, x := range es {
		v, err := r.eval(x)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (r *renderer) logic(e *expr) (any, error) {
	x, err := r.eval(e.args[0])
	if err != nil {
		return nil, err
	}
	if truthy(x) == (e.op == "or") {
		return x, nil
	}
	return r.eval(e.args[1])
}

func (r *renderer) collection(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	if e.op == "list" {
		return vals, nil
	}
	m := map[string]any{}
	for i := 0; i+1 < len(vals); i += 2 {
		m[str(vals[i])] = vals[i+1]
	}
	return m, nil
}

// attr reads a map key (or namespace attribute); anything else is
// undefined.
func attr(x any, name string) any {
	switch m := x.(type) {
	case map[string]any:
		if v, ok := m[name]; ok {
			return v
		}
	case namespace:
		if v, ok := m[name]; ok {
			return v
		}
	}
	return undefined{}
}

func (r *renderer) index(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	x, k := vals[0], vals[1]
	if s, ok := k.(string); ok {
		return attr(x, s), nil
	}
	i, ok := k.(int)
	if !ok {
		return undefined{}, nil
	}
	switch x := x.(type) {
	case []any:
		if i < 0 {
			i += len(x)
		}
		if i >= 0 && i < len(x) {
			return x[i], nil
		}
	case string:
		rs := []rune(x)
		if i < 0 {
			i += len(rs)
		}
		if i >= 0 && i < len(rs) {
			return string(rs[i]), nil
		}
	}
	return undefined{}, nil
}

func (r *renderer) slice(e *expr) (any, error) {
	x, err := r.eval(e.args[0])
	if err != nil {
		return nil, err
	}
	if e.args[3] != nil {
		return r.reverse(e, x)
	}
	n := 0
	switch x := x.(type) {
	case []any:
		n = len(x)
	case string:
		n = len([]rune(x))
	default:
		return nil, r.errorf(e.line, "cannot slice %s", typeName(x))
	}
	bound := func(b *expr, def int) (int, error) {
		if b == nil {
			return def, nil
		}
		v, err := r.eval(b)
		i, ok := v.(int)
		if err != nil || !ok {
			return 0, r.errorf(e.line, "slice bound is not an integer")
		}
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n), nil
	}
	lo, err := bound(e.args[1], 0)
	if err != nil {
		return nil, err
	}
	hi, err := bound(e.args[2], n)
	if err != nil {
		return nil, err
	}
	hi = max(hi, lo)
	if s, ok := x.(string); ok {
		return string([]rune(s)[lo:hi]), nil
	}
	return x.([]any)[lo:hi], nil
}

// reverse handles x[::-1], the only slice step supported.
func (r *renderer) reverse(e *expr, x any) (any, error) {
	step, err := r.eval(e.args[3])
	if err != nil {
		return nil, err
	}
	if st, ok := step.(int); !ok || st != -1 || e.args[1] != nil || e.args[2] != nil {
		return nil, r.errorf(e.line, "unsupported slice step (only [::-1])")
	}
	switch x := x.(type) {
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[len(x)-1-i] = v
		}
		return out, nil
	case string:
		rs := []rune(x)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	}
	return nil, r.errorf(e.line, "cannot slice %s", typeName(x))
}

func (r *renderer) binary(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	a, b := vals[0], vals[1]
	op := e.val.(string)
	switch op {
	case "==":
		return equal(a, b), nil
	case "!=":
		return !equal(a, b), nil
	case "in", "not in":
		in, err := contains(b, a)
		if err != nil {
			return nil, r.errorf(e.line, "%v", err)
		}
		return in == (op == "in"), nil
	case "~":
		return str(a) + str(b), nil
	case "<", ">", "<=", ">=":
		return r.order(op, a, b, e)
	}
	return arith(op, a, b, r, e)
}

func (r *renderer) order(op string, a, b any, e *expr) (any, error) {
	c := 0
	if sa, ok := a.(string); ok {
		sb, ok := b.(string)
		if !ok {
			return nil, r.errorf(e.line, "cannot compare string with %s", typeName(b))
		}
		c = strings.Compare(sa, sb)
	} else {
		fa, ok1 := number(a)
		fb, ok2 := number(b)
		if !ok1 || !ok2 {
			return nil, r.errorf(e.line, "cannot compare %s with %s", typeName(a), typeName(b))
		}
		switch {
		case fa < fb:
			c = -1
		case fa > fb:
			c = 1
		}
	}
	switch op {
	case "<":
		return c < 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	}
	return c >= 0, nil
}

// arith implements + - * / // % on numbers, + on strings and lists.
func arith(op string, a, b any, r *renderer, e *expr) (any, error) {
	if op == "+" {
		if sa, ok := a.(string); ok {
			if sb, ok := b.(string); ok {
				return sa + sb, nil
			}
		}
		if la, ok := a.([]any); ok {
			if lb, ok := b.([]any); ok {
				return append(append([]any{}, la...), lb...), nil
			}
		}
	}
	ia, aInt := a.(int)
	ib, bInt := b.(int)
	if aInt && bInt && op != "/" {
		switch op {
		case "+":
			return ia + ib, nil
		case "-":
			return ia - ib, nil
		case "*":
			return ia * ib, nil
		case "//", "%":
			if ib == 0 {
				return nil, r.errorf(e.line, "division by zero")
			}
			q, m := ia/ib, ia%ib
			if m != 0 && (m < 0) != (ib < 0) { // Python floors
				q, m = q-1, m+ib
			}
			if op == "%" {
				return m, nil
			}
			return q, nil
		}
	}
	fa, ok1 := number(a)
	fb, ok2 := number(b)
	if !ok1 || !ok2 || op == "%" || op == "//" {
		return nil, r.errorf(e.line, "unsupported operand types for %s: %s and %s", op, typeName(a), typeName(b))
	}
	switch op {
	case "+":
		return fa + fb, nil
	case "-":
		return fa - fb, nil
	case "*":
		return fa * fb, nil
	}
	if fb == 0 {
		return nil, r.errorf(e.line, "division by zero")
	}
	return fa / fb, nil
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func equal(a, b any) bool {
	if fa, ok := number(a); ok {
		if fb, ok := number(b); ok {
			return fa == fb
		}
		return false
	}
	switch a := a.(type) {
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case nil:
		return b == nil
	case undefined:
		_, ok := b.(undefined)
		return ok
	}
	return false
}

// contains is Python's "needle in haystack".
func contains(hay, needle any) (bool, error) {
	switch h := hay.(type) {
	case string:
		s, ok := needle.(string)
		if !ok {
			return false, fmt.Errorf("'in <string>' needs a string, got %s", typeName(needle))
		}
		return strings.Contains(h, s), nil
	case []any:
		for _, v := range h {
			if equal(v, needle) {
				return true, nil
			}
		}
		return false, nil
	case map[string]any:
		s, ok := needle.(string)
		_, in := h[s]
		return ok && in, nil
	case namespace:
		s, ok := needle.(string)
		_, in := h[s]
		return ok && in, nil
	case undefined, nil:
		return false, nil
	}
	return false, fmt.Errorf("%s is not a container", typeName(hay))
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil, undefined:
		return false
	case bool:
		return v
	case int:
		return v != 0
	case float64:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// str renders a value as Python's str() would.
func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return "None"
	case undefined:
		return ""
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(v)
	case float64:
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	}
	return repr(v)
}

// repr renders lists and dicts the way Python prints them.
func repr(v any) string {
	switch v := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), "'", `\'`) + "'"
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = repr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range sortedKeys(v) {
			parts = append(parts, repr(k)+": "+repr(v[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case namespace:
		return "<Namespace>"
	}
	return str(v)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "none"
	case undefined:
		return "undefined"
	case string:
		return "string"
	case int:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case namespace:
		return "namespace"
	}
	return fmt.Sprintf("%T", v)
}
