package chat

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

func (r *renderer) filter(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	kw, err := r.evalKw(e.kw)
	if err != nil {
		return nil, err
	}
	v, err := r.applyFilter(e.val.(string), vals[0], vals[1:], kw, e.line)
	if err != nil && !strings.HasPrefix(err.Error(), "chat template ") {
		return nil, r.errorf(e.line, "%v", err)
	}
	return v, err
}

// arg returns the i-th positional or the named argument.
func arg(args []any, kw map[string]any, i int, name string) (any, bool) {
	if i < len(args) {
		return args[i], true
	}
	v, ok := kw[name]
	return v, ok
}

func (r *renderer) applyFilter(name string, x any, args []any, kw map[string]any, line int) (any, error) {
	if v, ok, err := r.textFilter(name, x, args, kw, line); ok {
		return v, err
	}
	if v, ok, err := listFilter(name, x, args, kw); ok {
		return v, err
	}
	switch name {
	case "length", "count":
		return length(x)
	case "default", "d":
		def, _ := arg(args, kw, 0, "default_value")
		boolean, _ := arg(args, kw, 1, "boolean")
		if _, undef := x.(undefined); undef || (truthy(boolean) && !truthy(x)) {
			if def == nil && len(args) == 0 {
				return "", nil
			}
			return def, nil
		}
		return x, nil
	case "first", "last":
		items, err := iterate(x)
		if err != nil || len(items) == 0 {
			return undefined{hint: "no first item"}, err
		}
		if name == "first" {
			return items[0], nil
		}
		return items[len(items)-1], nil
	case "join":
		return r.join(x, args, kw, line)
	case "items":
		return items(x)
	case "list":
		items, err := iterate(x)
		return append([]any{}, items...), err
	case "tojson":
		return r.tojson(x, args, kw, line)
	case "from_json", "fromjson":
		var v any
		if err := json.Unmarshal([]byte(str(x)), &v); err != nil {
			return nil, fmt.Errorf("from_json: %v", err)
		}
		return fromGo(v), nil
	case "reject", "select", "rejectattr", "selectattr":
		return r.selectFilter(name, x, args, kw)
	case "map":
		return r.mapFilter(x, args, kw, line)
	case "dictsort":
		return dictsort(x, args, kw)
	case "sort":
		return sortFilter(x, args, kw)
	case "int", "float", "abs", "round":
		return numberFilter(name, x, args)
	case "sum", "max", "min":
		return aggregate(name, x, kw)
	}
	return nil, fmt.Errorf("no filter named '%s'", name)
}

// textFilter applies the filters that make a string; ok is false for
// other names.
func (r *renderer) textFilter(name string, x any, args []any, kw map[string]any, line int) (v any, ok bool, err error) {
	ok = true
	v, err = func() (any, error) {
		switch name {
		case "trim":
			var chars *string
			if c, ok := arg(args, kw, 0, "chars"); ok && c != nil {
				s := str(c)
				chars = &s
			}
			return pyStrip(str(x), chars, true, true), nil
		case "lower":
			return strings.ToLower(str(x)), nil
		case "upper":
			return strings.ToUpper(str(x)), nil
		case "capitalize":
			s := []rune(strings.ToLower(str(x)))
			if len(s) > 0 {
				s[0] = unicode.ToUpper(s[0])
			}
			return string(s), nil
		case "title":
			return title(str(x)), nil
		case "string", "safe", "e", "escape":
			if name == "e" || name == "escape" {
				return htmlEscape(str(x)), nil
			}
			if _, ok := x.(string); ok || name == "string" {
				return str(x), nil
			}
			return x, nil
		case "wordcount":
			return len(strings.Fields(str(x))), nil
		case "replace":
			old, _ := arg(args, kw, 0, "old")
			nw, _ := arg(args, kw, 1, "new")
			s := strings.ReplaceAll(str(x), str(old), str(nw))
			return r.sized(s, line)
		case "indent":
			return r.indent(x, args, kw, line)
		}
		ok = false
		return nil, nil
	}()
	return v, ok, err
}

func title(s string) string {
	var b strings.Builder
	prevLetter := false
	for _, c := range s {
		if prevLetter {
			b.WriteRune(unicode.ToLower(c))
		} else {
			b.WriteRune(unicode.ToTitle(c))
		}
		prevLetter = unicode.IsLetter(c) || unicode.IsDigit(c) || c == '\''
	}
	return b.String()
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func length(x any) (any, error) {
	switch x := x.(type) {
	case string:
		return runeLen(x), nil
	case []any:
		return len(x), nil
	case *dict:
		return len(x.keys), nil
	case namespace:
		return len(x), nil
	case undefined:
		return 0, nil
	}
	return nil, fmt.Errorf("object of type '%s' has no len()", typeName(x))
}

func (r *renderer) join(x any, args []any, kw map[string]any, line int) (any, error) {
	items, err := iterate(x)
	if err != nil {
		return nil, err
	}
	sep := ""
	if s, ok := arg(args, kw, 0, "d"); ok {
		sep = str(s)
	}
	attr, hasAttr := arg(args, kw, 1, "attribute")
	parts := make([]string, len(items))
	total := 0
	for i, it := range items {
		if hasAttr {
			if it, err = r.attr(it, str(attr), line); err != nil {
				return nil, err
			}
		}
		parts[i] = str(it)
		total += len(parts[i]) + len(sep)
		if total > maxOutput {
			return r.sized(strings.Repeat(" ", maxOutput+1), line)
		}
	}
	return strings.Join(parts, sep), nil
}

func items(x any) (any, error) {
	switch d := x.(type) {
	case *dict:
		out := make([]any, 0, len(d.keys))
		for i, k := range d.keys {
			out = append(out, []any{d.orig[i], d.m[k]})
		}
		return out, nil
	case namespace:
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, 0, len(keys))
		for _, k := range keys {
			out = append(out, []any{k, d[k]})
		}
		return out, nil
	case undefined:
		return []any{}, nil
	}
	return nil, fmt.Errorf("items: %s is not a dict", typeName(x))
}

func dictsort(x any, args []any, kw map[string]any) (any, error) {
	pairs, err := items(x)
	if err != nil {
		return nil, err
	}
	list := pairs.([]any)
	cs, _ := arg(args, kw, 0, "case_sensitive")
	by, _ := arg(args, kw, 1, "by")
	rev, _ := arg(args, kw, 2, "reverse")
	k := 0
	if by == "value" {
		k = 1
	}
	var sortErr error
	sort.SliceStable(list, func(i, j int) bool {
		a, b := sortKey(list[i].([]any)[k], truthy(cs)), sortKey(list[j].([]any)[k], truthy(cs))
		c, err := compare(a, b)
		if err != nil {
			sortErr = err
		}
		if truthy(rev) {
			return c > 0
		}
		return c < 0
	})
	return list, sortErr
}

func sortKey(v any, caseSensitive bool) any {
	if s, ok := v.(string); ok && !caseSensitive {
		return strings.ToLower(s)
	}
	return v
}

func sortFilter(x any, args []any, kw map[string]any) (any, error) {
	items, err := iterate(x)
	if err != nil {
		return nil, err
	}
	out := append([]any{}, items...)
	rev, _ := arg(args, kw, 0, "reverse")
	cs, _ := arg(args, kw, 1, "case_sensitive")
	attr, hasAttr := arg(args, kw, 2, "attribute")
	var sortErr error
	key := func(v any) any {
		if hasAttr {
			if d, ok := v.(*dict); ok {
				v = d.m[str(attr)]
			}
		}
		return sortKey(v, truthy(cs))
	}
	sort.SliceStable(out, func(i, j int) bool {
		c, err := compare(key(out[i]), key(out[j]))
		if err != nil {
			sortErr = err
		}
		if truthy(rev) {
			return c > 0
		}
		return c < 0
	})
	return out, sortErr
}

func (r *renderer) indent(x any, args []any, kw map[string]any, line int) (any, error) {
	w, _ := arg(args, kw, 0, "width")
	first, _ := arg(args, kw, 1, "first")
	blank, _ := arg(args, kw, 2, "blank")
	pad := "    "
	switch w := w.(type) {
	case int:
		if w < 0 || w > maxOutput {
			return nil, fmt.Errorf("indent width %d", w)
		}
		pad = strings.Repeat(" ", w)
	case string:
		pad = w
	}
	lines := strings.Split(str(x), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if (i > 0 || truthy(first)) && (l != "" || truthy(blank)) {
			b.WriteString(pad)
		}
		b.WriteString(l)
		if b.Len() > maxOutput {
			return r.sized(b.String(), line)
		}
	}
	return b.String(), nil
}

func numberFilter(name string, x any, args []any) (any, error) {
	switch name {
	case "int":
		switch v := x.(type) {
		case int:
			return v, nil
		case float64:
			return int(v), nil
		case bool:
			n, _ := intOf(v)
			return n, nil
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n, nil
			}
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				return int(f), nil
			}
		}
		if len(args) > 0 {
			return args[0], nil
		}
		return 0, nil
	case "float":
		if f, ok := number(x); ok {
			return f, nil
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(str(x)), 64); err == nil {
			return f, nil
		}
		return 0.0, nil
	case "abs":
		switch v := x.(type) {
		case int:
			return max(v, -v), nil
		case float64:
			return math.Abs(v), nil
		}
		return nil, fmt.Errorf("bad operand type for abs(): '%s'", typeName(x))
	}
	f, ok := number(x)
	if !ok {
		return nil, fmt.Errorf("round: %s is not a number", typeName(x))
	}
	p := 0
	if len(args) > 0 {
		p, _ = args[0].(int)
	}
	m := math.Pow(10, float64(p))
	return math.RoundToEven(f*m) / m, nil
}

func aggregate(name string, x any, kw map[string]any) (any, error) {
	items, err := iterate(x)
	if err != nil {
		return nil, err
	}
	if name == "sum" {
		total := any(0)
		if s, ok := kw["start"]; ok {
			total = s
		}
		for _, it := range items {
			a, aInt := intOf(total)
			b, bInt := intOf(it)
			if aInt && bInt {
				total = a + b
				continue
			}
			fa, ok1 := number(total)
			fb, ok2 := number(it)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("sum of non-numbers")
			}
			total = fa + fb
		}
		return total, nil
	}
	if len(items) == 0 {
		return undefined{hint: "empty sequence"}, nil
	}
	best := items[0]
	for _, it := range items[1:] {
		c, err := compare(it, best)
		if err != nil {
			return nil, err
		}
		if (name == "max" && c > 0) || (name == "min" && c < 0) {
			best = it
		}
	}
	return best, nil
}

// selectFilter is select/reject (a test on each item) and
// selectattr/rejectattr (a test on an attribute of each item).
func (r *renderer) selectFilter(name string, x any, args []any, kw map[string]any) (any, error) {
	if !truthy(x) {
		return []any{}, nil
	}
	list, err := iterate(x)
	if err != nil {
		return nil, err
	}
	keep := name == "select" || name == "selectattr"
	attr := ""
	if strings.HasSuffix(name, "attr") {
		if len(args) == 0 {
			return nil, fmt.Errorf("%s needs an attribute name", name)
		}
		attr, args = str(args[0]), args[1:]
	}
	test := ""
	if len(args) > 0 {
		test, args = str(args[0]), args[1:]
	}
	out := []any{}
	for _, it := range list {
		v := it
		if attr != "" {
			if v, err = r.attr(it, attr, 0); err != nil {
				return nil, err
			}
		}
		ok := truthy(v)
		if test != "" {
			if ok, err = runTest(test, v, args); err != nil {
				return nil, err
			}
		}
		if ok == keep {
			out = append(out, it)
		}
	}
	return out, nil
}

// mapFilter is map(attribute=…, default=…) or map(filter, args…).
func (r *renderer) mapFilter(x any, args []any, kw map[string]any, line int) (any, error) {
	if !truthy(x) {
		return []any{}, nil
	}
	list, err := iterate(x)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(list))
	for _, it := range list {
		var v any
		if a, ok := kw["attribute"]; ok {
			if v, err = r.attr(it, str(a), line); err != nil {
				return nil, err
			}
			if _, undef := v.(undefined); undef {
				if d, ok := kw["default"]; ok {
					v = d
				}
			}
		} else if len(args) > 0 {
			if v, err = r.applyFilter(str(args[0]), it, args[1:], nil, line); err != nil {
				return nil, err
			}
		} else {
			v = it
		}
		out = append(out, v)
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
	if ok, known := typeTest(name, x); known {
		return ok, nil
	}
	one := func() (any, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("test %s needs one argument", name)
		}
		return args[0], nil
	}
	switch name {
	case "odd", "even":
		n, ok := x.(int)
		return ok && (n%2 != 0) == (name == "odd"), nil
	case "divisibleby":
		a, err := one()
		n, ok1 := x.(int)
		d, ok2 := a.(int)
		return err == nil && ok1 && ok2 && d != 0 && n%d == 0, err
	case "in":
		a, err := one()
		if err != nil {
			return false, err
		}
		return contains(a, x)
	case "sameas":
		a, err := one()
		return err == nil && x == a, err
	}
	a, err := one()
	if err != nil {
		return false, err
	}
	switch name {
	case "equalto", "eq", "==":
		return equal(x, a), nil
	case "ne", "!=":
		return !equal(x, a), nil
	}
	c, err := compare(x, a)
	if err != nil {
		return false, err
	}
	switch name {
	case "gt", "greaterthan", ">":
		return c > 0, nil
	case "ge", ">=":
		return c >= 0, nil
	case "lt", "lessthan", "<":
		return c < 0, nil
	case "le", "<=":
		return c <= 0, nil
	}
	return false, fmt.Errorf("no test named '%s'", name)
}

// typeTest runs the tests on a value's type and case; known is false for
// other names.
func typeTest(name string, x any) (ok, known bool) {
	known = true
	switch name {
	case "defined", "undefined":
		_, undef := x.(undefined)
		return undef == (name == "undefined"), true
	case "none":
		return x == nil, true
	case "string":
		_, ok := x.(string)
		return ok, true
	case "number":
		_, isInt := x.(int)
		_, isFloat := x.(float64)
		return isInt || isFloat, true
	case "integer":
		_, ok := x.(int)
		return ok, true
	case "float":
		_, ok := x.(float64)
		return ok, true
	case "boolean":
		_, ok := x.(bool)
		return ok, true
	case "mapping":
		_, ok := x.(*dict)
		_, isNS := x.(namespace)
		return ok || isNS, true
	case "iterable", "sequence":
		switch x.(type) {
		case string, []any, *dict:
			return true, true
		}
		return false, true
	case "callable":
		switch x.(type) {
		case *macro, builtin:
			return true, true
		}
		return false, true
	case "true", "false":
		b, ok := x.(bool)
		return ok && b == (name == "true"), true
	case "lower", "upper":
		s, ok := x.(string)
		if name == "lower" {
			return ok && s == strings.ToLower(s), true
		}
		return ok && s == strings.ToUpper(s), true
	}
	return false, false
}

// listFilter applies unique, reverse and batch; ok is false for other
// names.
func listFilter(name string, x any, args []any, kw map[string]any) (v any, ok bool, err error) {
	ok = true
	v, err = func() (any, error) {
		switch name {
		case "unique":
			items, err := iterate(x)
			var out []any
			for _, it := range items {
				dup := false
				for _, o := range out {
					dup = dup || equal(o, it)
				}
				if !dup {
					out = append(out, it)
				}
			}
			return out, err
		case "reverse":
			if s, ok := x.(string); ok {
				rs := []rune(s)
				for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
					rs[i], rs[j] = rs[j], rs[i]
				}
				return string(rs), nil
			}
			items, err := iterate(x)
			out := make([]any, len(items))
			for i, v := range items {
				out[len(items)-1-i] = v
			}
			return out, err
		case "batch":
			n, _ := arg(args, kw, 0, "linecount")
			k, ok := n.(int)
			if !ok || k < 1 {
				return nil, fmt.Errorf("batch needs a positive size")
			}
			items, err := iterate(x)
			var out []any
			for i := 0; i < len(items); i += k {
				out = append(out, append([]any{}, items[i:min(i+k, len(items))]...))
			}
			return out, err
		}
		ok = false
		return nil, nil
	}()
	return v, ok, err
}
