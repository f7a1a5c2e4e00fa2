package chat

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tojson is Python's json.dumps(x, ensure_ascii=False, indent=…,
// separators=…, sort_keys=…): ", " and ": " by default, "," and ": " with
// an indent; a negative indent is a newline with no spaces, as Python.
func (r *renderer) tojson(x any, args []any, kw map[string]any, line int) (any, error) {
	j := jsonWriter{item: ", ", key: ": ", indent: -1}
	if v, ok := arg(args, kw, 0, "indent"); ok && v != nil {
		switch n := v.(type) {
		case int:
			j.indent = max(n, 0)
		case string:
			j.pad, j.indent = n, len(n)
		default:
			return nil, fmt.Errorf("tojson: indent must be an integer or a string")
		}
		if j.pad == "" && j.indent > 0 {
			j.pad = strings.Repeat(" ", min(j.indent, 1024))
		}
		j.item = ","
	}
	if sep, ok := kw["separators"]; ok {
		parts, _ := iterate(sep)
		if len(parts) == 2 {
			j.item, j.key = str(parts[0]), str(parts[1])
		}
	}
	j.sortKeys = truthy(kw["sort_keys"])
	if err := j.write(x, 0); err != nil {
		return nil, fmt.Errorf("tojson: %v", err)
	}
	return r.sized(j.b.String(), line)
}

type jsonWriter struct {
	b         strings.Builder
	item, key string
	indent    int // -1: no newlines
	pad       string
	sortKeys  bool
}

func (j *jsonWriter) newline(level int) {
	if j.indent < 0 {
		return
	}
	j.b.WriteByte('\n')
	for range level {
		j.b.WriteString(j.pad)
	}
}

func (j *jsonWriter) write(x any, level int) error {
	if level > maxDepth || j.b.Len() > maxOutput {
		return fmt.Errorf("value too deep or too large")
	}
	switch v := x.(type) {
	case []any:
		if len(v) == 0 {
			j.b.WriteString("[]")
			return nil
		}
		j.b.WriteByte('[')
		for i, it := range v {
			if i > 0 {
				j.b.WriteString(j.item)
			}
			j.newline(level + 1)
			if err := j.write(it, level+1); err != nil {
				return err
			}
		}
		j.newline(level)
		j.b.WriteByte(']')
	case *dict:
		if len(v.keys) == 0 {
			j.b.WriteString("{}")
			return nil
		}
		keys := v.keys
		if j.sortKeys {
			keys = append([]string(nil), keys...)
			sort.Strings(keys)
		}
		j.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				j.b.WriteString(j.item)
			}
			j.newline(level + 1)
			writeJSONString(&j.b, k)
			j.b.WriteString(j.key)
			if err := j.write(v.m[k], level+1); err != nil {
				return err
			}
		}
		j.newline(level)
		j.b.WriteByte('}')
	case string:
		writeJSONString(&j.b, v)
	case nil:
		j.b.WriteString("null")
	case bool:
		j.b.WriteString(map[bool]string{true: "true", false: "false"}[v])
	case int, float64:
		s := str(v)
		if s == "inf" || s == "-inf" || s == "nan" {
			s = map[string]string{"inf": "Infinity", "-inf": "-Infinity", "nan": "NaN"}[s]
		}
		j.b.WriteString(s)
	case namespace:
		return fmt.Errorf("Object of type Namespace is not JSON serializable")
	case undefined:
		return fmt.Errorf("Object of type Undefined is not JSON serializable")
	default:
		return fmt.Errorf("Object of type %s is not JSON serializable", typeName(x))
	}
	return nil
}

// writeJSONString quotes s as Python's json.dumps with ensure_ascii=False.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20:
			fmt.Fprintf(b, `\u%04x`, c)
		case c == utf8.RuneError:
			b.WriteString(`\ufffd`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
}

// method calls a string, dict or list method.
func (r *renderer) method(e *expr) (any, error) {
	vals, err := r.evalAll(e.args)
	if err != nil {
		return nil, err
	}
	kw, err := r.evalKw(e.kw)
	if err != nil {
		return nil, err
	}
	x, args := vals[0], vals[1:]
	name := e.val.(string)
	var v any
	switch m := x.(type) {
	case string:
		v, err = stringMethod(name, m, args)
	case *dict:
		v, err = dictMethod(name, m, args, kw)
	case namespace:
		v, err = dictMethod(name, namespaceDict(m), args, kw)
	case []any:
		v, err = listMethod(name, m, args)
	case undefined:
		err = fmt.Errorf("%s", m.hint)
	default:
		err = fmt.Errorf("'%s' object has no attribute '%s'", typeName(x), name)
	}
	if err != nil {
		return nil, r.errorf(e.line, "%v", err)
	}
	if s, ok := v.(string); ok {
		return r.sized(s, e.line)
	}
	return v, nil
}

func namespaceDict(ns namespace) *dict {
	d := newDictOf()
	keys := make([]string, 0, len(ns))
	for k := range ns {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d.set(k, ns[k])
	}
	return d
}

func dictMethod(name string, m *dict, args []any, kw map[string]any) (any, error) {
	switch name {
	case "items":
		return items(m)
	case "keys":
		return iterate(m)
	case "values":
		out := make([]any, 0, len(m.keys))
		for _, k := range m.keys {
			out = append(out, m.m[k])
		}
		return out, nil
	case "get":
		if len(args) == 0 {
			return nil, fmt.Errorf("get needs a key")
		}
		if v, ok := m.get(str(args[0])); ok {
			return v, nil
		}
		if len(args) > 1 {
			return args[1], nil
		}
		return nil, nil
	case "copy":
		d := newDictOf()
		for _, k := range m.keys {
			d.set(k, m.m[k])
		}
		return d, nil
	case "update", "pop":
		return nil, fmt.Errorf("access to attribute '%s' of 'dict' object is unsafe", name)
	}
	return nil, fmt.Errorf("'dict' object has no attribute '%s'", name)
}

func listMethod(name string, l []any, args []any) (any, error) {
	switch name {
	case "index":
		if len(args) > 0 {
			for i, v := range l {
				if equal(v, args[0]) {
					return i, nil
				}
			}
		}
		return nil, fmt.Errorf("value is not in list")
	case "count":
		n := 0
		for _, v := range l {
			if len(args) > 0 && equal(v, args[0]) {
				n++
			}
		}
		return n, nil
	case "append", "pop":
		return nil, fmt.Errorf("access to attribute '%s' of 'list' object is unsafe", name)
	case "copy":
		return append([]any{}, l...), nil
	}
	return nil, fmt.Errorf("'list' object has no attribute '%s'", name)
}

func stringMethod(name, s string, args []any) (any, error) {
	sarg := func(i int) (string, bool) {
		if i < len(args) {
			a, ok := args[i].(string)
			return a, ok
		}
		return "", false
	}
	a0, has0 := sarg(0)
	var chars *string
	if has0 {
		chars = &a0
	}
	switch name {
	case "strip":
		return pyStrip(s, chars, true, true), nil
	case "lstrip":
		return pyStrip(s, chars, true, false), nil
	case "rstrip":
		return pyStrip(s, chars, false, true), nil
	case "lower", "upper", "title", "capitalize":
		return caseMethod(name, s), nil
	case "startswith", "endswith":
		return affix(name, s, args)
	case "split", "rsplit":
		return split(name, s, args), nil
	case "splitlines":
		var out []any
		for _, l := range strings.Split(strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n") {
			out = append(out, l)
		}
		if s == "" {
			out = []any{}
		}
		return out, nil
	case "replace":
		a1, has1 := sarg(1)
		if !has0 || !has1 {
			return nil, fmt.Errorf("replace needs two strings")
		}
		n := -1
		if len(args) > 2 {
			if c, ok := args[2].(int); ok {
				n = c
			}
		}
		return strings.Replace(s, a0, a1, n), nil
	case "find", "rfind", "index":
		i := strings.Index(s, a0)
		if name == "rfind" {
			i = strings.LastIndex(s, a0)
		}
		if i >= 0 {
			i = utf8.RuneCountInString(s[:i])
		}
		return i, nil
	case "count":
		return strings.Count(s, a0), nil
	case "join":
		items, err := iterate(argAt(args, 0))
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = str(it)
		}
		return strings.Join(parts, s), err
	case "isdigit", "isalpha", "isspace", "islower", "isupper":
		return classTest(name, s), nil
	case "format":
		return pyFormat(s, args), nil
	}
	return nil, fmt.Errorf("'str' object has no attribute '%s'", name)
}

func argAt(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return nil
}

func affix(name, s string, args []any) (any, error) {
	var cands []any
	switch a := argAt(args, 0).(type) {
	case string:
		cands = []any{a}
	case []any:
		cands = a
	default:
		return nil, fmt.Errorf("%s needs a string", name)
	}
	for _, c := range cands {
		cs := str(c)
		if (name == "startswith" && strings.HasPrefix(s, cs)) || (name == "endswith" && strings.HasSuffix(s, cs)) {
			return true, nil
		}
	}
	return false, nil
}

// split is Python's str.split / rsplit with an optional separator and
// maxsplit.
func split(name, s string, args []any) []any {
	sep, hasSep := argAt(args, 0).(string)
	n := -1
	if m, ok := argAt(args, 1).(int); ok {
		n = m
	}
	var parts []string
	switch {
	case hasSep && name == "rsplit" && n >= 0:
		parts = strings.Split(s, sep)
		if len(parts) > n+1 {
			head := strings.Join(parts[:len(parts)-n], sep)
			parts = append([]string{head}, parts[len(parts)-n:]...)
		}
	case hasSep:
		if n >= 0 {
			parts = strings.SplitN(s, sep, n+1)
		} else {
			parts = strings.Split(s, sep)
		}
	default:
		parts = strings.FieldsFunc(s, pyIsSpace)
		if n >= 0 && len(parts) > n+1 && name == "split" {
			rest := strings.TrimLeftFunc(s, pyIsSpace)
			for k := 0; k < n; k++ {
				rest = strings.TrimLeftFunc(rest[len(parts[k]):], pyIsSpace)
			}
			parts = append(parts[:n:n], rest)
		}
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

func classTest(name, s string) bool {
	if s == "" {
		return false
	}
	cased := false
	for _, c := range s {
		switch name {
		case "isdigit":
			if !unicode.IsDigit(c) {
				return false
			}
		case "isalpha":
			if !unicode.IsLetter(c) {
				return false
			}
		case "isspace":
			if !pyIsSpace(c) {
				return false
			}
		case "islower":
			if unicode.IsUpper(c) {
				return false
			}
			cased = cased || unicode.IsLower(c)
		case "isupper":
			if unicode.IsLower(c) {
				return false
			}
			cased = cased || unicode.IsUpper(c)
		}
	}
	return cased || (name != "islower" && name != "isupper")
}

// pyFormat is str.format with positional {} and {0} fields.
func pyFormat(s string, args []any) string {
	var b strings.Builder
	next := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '{' && i+1 < len(s) && s[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		if s[i] == '}' && i+1 < len(s) && s[i+1] == '}' {
			b.WriteByte('}')
			i++
			continue
		}
		if s[i] == '{' {
			j := strings.IndexByte(s[i:], '}')
			if j > 0 {
				k := next
				if n, err := strconv.Atoi(s[i+1 : i+j]); err == nil {
					k = n
				} else {
					next++
				}
				b.WriteString(str(argAt(args, k)))
				i += j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func caseMethod(name, s string) string {
	switch name {
	case "lower":
		return strings.ToLower(s)
	case "upper":
		return strings.ToUpper(s)
	case "title":
		return title(s)
	}
	rs := []rune(strings.ToLower(s))
	if len(rs) > 0 {
		rs[0] = unicode.ToUpper(rs[0])
	}
	return string(rs)
}
