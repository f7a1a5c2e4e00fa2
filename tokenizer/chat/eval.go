package chat

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

func (r *renderer) eval(e *expr) (any, error) {
	if err := r.step(e.line); err != nil {
		return nil, err
	}
	if err := r.b.Enter(); err != nil {
		r.b.Leave()
		return nil, r.budgetErr(e.line, err)
	}
	defer r.b.Leave()
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
		return r.attr(x, e.val.(string), e.line)
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
		return r.arith("-", 0, x, e)
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

func (r *renderer) evalKw(kw map[string]*expr) (map[string]any, error) {
	out := make(map[string]any, len(kw))
	for k, x := range kw {
		v, err := r.eval(x)
		if err != nil {
			return nil, err
		}
		out[k] = v
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
	d := newDictOf()
	for i := 0; i+1 < len(vals); i += 2 {
		d.setKey(vals[i], vals[i+1])
	}
	return d, nil
}

// attr reads x.name: a dict key or namespace attribute; a missing one is
// undefined (using an attribute of undefined is an error).
func (r *renderer) attr(x any, name string, line int) (any, error) {
	switch m := x.(type) {
	case *dict:
		if v, ok := m.get(name); ok {
			return v, nil
		}
	case namespace:
		if v, ok := m[name]; ok {
			return v, nil
		}
	case *loopInfo:
		if v, ok := m.attr(name); ok {
			return v, nil
		}
	case undefined:
		return nil, r.errorf(line, "%s", m.hint)
	case nil:
		return nil, r.errorf(line, "'None' has no attribute '%s'", name)
	}
	return undefined{hint: fmt.Sprintf("'%s' has no attribute '%s'", objName(x), name)}, nil
}

// objName names a value's type as Jinja's messages do.
func objName(x any) string {
	switch x.(type) {
	case *dict:
		return "dict object"
	case []any:
		return "list object"
	case string:
		return "str object"
	}
	return typeName(x) + " object"
}

func (r *renderer) index(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	x, k := vals[0], vals[1]
	if u, ok := x.(undefined); ok {
		return nil, r.errorf(e.line, "%s", u.hint)
	}
	if s, ok := k.(string); ok {
		return r.attr(x, s, e.line)
	}
	if d, ok := x.(*dict); ok {
		return r.attr(d, str(k), e.line)
	}
	i, ok := k.(int)
	if !ok {
		return undefined{hint: "index is not an integer"}, nil
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
	return undefined{hint: fmt.Sprintf("%s has no element %d", objName(x), i)}, nil
}

func (r *renderer) slice(e *expr) (any, error) {
	vals, err := r.evalAll(e.args[:1])
	if err != nil {
		return nil, err
	}
	x := vals[0]
	var items []any
	str, isStr := x.(string)
	switch x := x.(type) {
	case []any:
		items = x
	case string:
		for _, c := range x {
			items = append(items, string(c))
		}
	default:
		return nil, r.errorf(e.line, "cannot slice %s", typeName(x))
	}
	bounds := [3]int{0, 0, 1}
	given := [3]bool{}
	for k := 0; k < 3; k++ {
		if e.args[k+1] == nil {
			continue
		}
		v, err := r.eval(e.args[k+1])
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, ok := v.(int)
		if !ok {
			return nil, r.errorf(e.line, "slice indices must be integers")
		}
		bounds[k], given[k] = n, true
	}
	out, err := pySlice(items, bounds, given)
	if err != nil {
		return nil, r.errorf(e.line, "%v", err)
	}
	if isStr {
		_ = str
		var b strings.Builder
		for _, c := range out {
			b.WriteString(c.(string))
		}
		return b.String(), nil
	}
	return out, nil
}

// pySlice is Python's items[lo:hi:step].
func pySlice(items []any, b [3]int, given [3]bool) ([]any, error) {
	n, step := len(items), b[2]
	if step == 0 {
		return nil, fmt.Errorf("slice step cannot be zero")
	}
	norm := func(i int, def int, lo, hi int) int {
		if i < 0 {
			i += n
		}
		return min(max(i, lo), hi)
	}
	var lo, hi int
	if step > 0 {
		lo, hi = 0, n
		if given[0] {
			lo = norm(b[0], 0, 0, n)
		}
		if given[1] {
			hi = norm(b[1], n, 0, n)
		}
	} else {
		lo, hi = n-1, -1
		if given[0] {
			lo = norm(b[0], n-1, -1, n-1)
		}
		if given[1] {
			hi = norm(b[1], -1, -1, n-1)
		}
	}
	var out []any
	for i := lo; (step > 0 && i < hi) || (step < 0 && i > hi); i += step {
		out = append(out, items[i])
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
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
		sa, err := r.str(a, e.line)
		if err != nil {
			return nil, err
		}
		sb, err := r.str(b, e.line)
		if err != nil {
			return nil, err
		}
		return r.sized(sa+sb, e.line)
	case "<", ">", "<=", ">=":
		return r.order(op, a, b, e)
	}
	return r.arith(op, a, b, e)
}

func (r *renderer) order(op string, a, b any, e *expr) (any, error) {
	c, err := compare(a, b)
	if err != nil {
		return nil, r.errorf(e.line, "%v", err)
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

// compare orders two strings or two numbers.
func compare(a, b any) (int, error) {
	if sa, ok := a.(string); ok {
		sb, ok := b.(string)
		if !ok {
			return 0, fmt.Errorf("'<' not supported between str and %s", typeName(b))
		}
		return strings.Compare(sa, sb), nil
	}
	fa, ok1 := number(a)
	fb, ok2 := number(b)
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("'<' not supported between %s and %s", typeName(a), typeName(b))
	}
	switch {
	case fa < fb:
		return -1, nil
	case fa > fb:
		return 1, nil
	}
	return 0, nil
}

// arith implements + - * / // % and ** on numbers, + on strings and
// lists, * of a string or list by an integer.
func (r *renderer) arith(op string, a, b any, e *expr) (any, error) {
	for _, v := range []any{a, b} {
		if u, ok := v.(undefined); ok {
			return nil, r.errorf(e.line, "%s", u.hint)
		}
	}
	switch op {
	case "+":
		if sa, ok := a.(string); ok {
			if sb, ok := b.(string); ok {
				return r.sized(sa+sb, e.line)
			}
		}
		if la, ok := a.([]any); ok {
			if lb, ok := b.([]any); ok {
				return append(append([]any{}, la...), lb...), nil
			}
		}
	case "*":
		if v, ok, err := r.repeat(a, b, e); ok {
			return v, err
		}
		if v, ok, err := r.repeat(b, a, e); ok {
			return v, err
		}
	}
	ia, aInt := intOf(a)
	ib, bInt := intOf(b)
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
	if !ok1 || !ok2 {
		return nil, r.errorf(e.line, "unsupported operand types for %s: '%s' and '%s'", op, typeName(a), typeName(b))
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
	switch op {
	case "//":
		return math.Floor(fa / fb), nil
	case "%":
		return fa - fb*math.Floor(fa/fb), nil
	}
	return fa / fb, nil
}

// repeat is s * n for a string or list s, within the output budget.
func (r *renderer) repeat(s, n any, e *expr) (any, bool, error) {
	k, ok := n.(int)
	if !ok {
		return nil, false, nil
	}
	k = max(k, 0)
	switch s := s.(type) {
	case string:
		if len(s) > 0 && k > maxOutput/len(s) {
			return nil, true, fmt.Errorf("chat template %s:%d: %w: a string of more than %d bytes", r.name, e.line, errBudget, maxOutput)
		}
		return strings.Repeat(s, k), true, nil
	case []any:
		if len(s) > 0 && k > maxOutput/len(s) {
			return nil, true, fmt.Errorf("chat template %s:%d: %w: a list too long", r.name, e.line, errBudget)
		}
		var out []any
		for range k {
			out = append(out, s...)
		}
		return out, true, nil
	}
	return nil, false, nil
}

func intOf(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
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
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equal(a[i], bl[i]) {
				return false
			}
		}
		return true
	case *dict:
		bd, ok := b.(*dict)
		if !ok || len(a.keys) != len(bd.keys) {
			return false
		}
		for _, k := range a.keys {
			v, ok := bd.get(k)
			if !ok || !equal(a.m[k], v) {
				return false
			}
		}
		return true
	}
	return false
}

// contains is Python's "needle in haystack".
func contains(hay, needle any) (bool, error) {
	switch h := hay.(type) {
	case string:
		s, ok := needle.(string)
		if !ok {
			return false, fmt.Errorf("'in <string>' requires string as left operand, not %s", typeName(needle))
		}
		return strings.Contains(h, s), nil
	case []any:
		for _, v := range h {
			if equal(v, needle) {
				return true, nil
			}
		}
		return false, nil
	case *dict:
		s, ok := needle.(string)
		_, in := h.m[s]
		return ok && in, nil
	case namespace:
		s, ok := needle.(string)
		_, in := h[s]
		return ok && in, nil
	case undefined:
		return false, nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", typeName(hay))
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
	case *dict:
		return len(v.keys) > 0
	}
	return true
}

// str renders a value as Python's str() would.
func (r *renderer) str(v any, line int) (string, error) {
	if m, ok := v.(*macro); ok {
		return "", r.errorf(line, "cannot print macro %s", m.n.name)
	}
	return str(v), nil
}

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
		return pyFloat(v)
	}
	return repr(v)
}

// pyFloat formats a float as Python's repr does.
func pyFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if e := strings.IndexByte(s, 'e'); e >= 0 {
		exp, _ := strconv.Atoi(s[e+1:])
		if exp >= -4 && exp < 16 {
			s = strconv.FormatFloat(v, 'f', -1, 64)
		} else {
			mant := s[:e]
			sign := "+"
			if exp < 0 {
				sign, exp = "-", -exp
			}
			return fmt.Sprintf("%se%s%02d", mant, sign, exp)
		}
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// repr renders lists and dicts the way Python prints them.
func repr(v any) string {
	switch v := v.(type) {
	case string:
		q := "'"
		if strings.Contains(v, "'") && !strings.Contains(v, `"`) {
			q = `"`
		}
		s := strings.ReplaceAll(v, `\`, `\\`)
		s = strings.ReplaceAll(s, "\n", `\n`)
		s = strings.ReplaceAll(s, "\t", `\t`)
		s = strings.ReplaceAll(s, "\r", `\r`)
		if q == "'" {
			s = strings.ReplaceAll(s, "'", `\'`)
		}
		return q + s + q
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = repr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *dict:
		parts := make([]string, 0, len(v.keys))
		for _, k := range v.keys {
			parts = append(parts, repr(k)+": "+repr(v.m[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case namespace:
		return "<Namespace>"
	case *macro:
		return "<Macro '" + v.n.name + "'>"
	}
	return str(v)
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case undefined:
		return "Undefined"
	case string:
		return "str"
	case int:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case []any:
		return "list"
	case *dict:
		return "dict"
	case namespace:
		return "Namespace"
	case *macro, builtin:
		return "function"
	}
	return fmt.Sprintf("%T", v)
}

// runeLen is a string's length in characters.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
