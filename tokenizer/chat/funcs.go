package chat

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// raised is the message of raise_exception.
type raised string

func (m raised) Error() string { return string(m) }

// builtin is a global function.
type builtin func(r *renderer, args []any, kw map[string]any) (any, error)

var builtinFuncs map[string]builtin

func init() {
	builtinFuncs = map[string]builtin{
		"raise_exception": func(r *renderer, args []any, _ map[string]any) (any, error) {
			msg := ""
			if len(args) > 0 {
				msg = str(args[0])
			}
			return nil, raised(msg)
		},
		"namespace": func(_ *renderer, args []any, kw map[string]any) (any, error) {
			ns := namespace{}
			for _, a := range args {
				if d, ok := a.(*dict); ok {
					for _, k := range d.keys {
						ns[k] = d.m[k]
					}
				}
			}
			for k, v := range kw {
				ns[k] = v
			}
			return ns, nil
		},
		"dict": func(_ *renderer, _ []any, kw map[string]any) (any, error) {
			d := newDictOf()
			keys := make([]string, 0, len(kw))
			for k := range kw {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				d.set(k, kw[k])
			}
			return d, nil
		},
		"range":        rangeFunc,
		"strftime_now": strftimeNow,
	}
}

func rangeFunc(_ *renderer, args []any, _ map[string]any) (any, error) {
	var b [3]int
	b[2] = 1
	for i, a := range args {
		n, ok := a.(int)
		if !ok || i > 2 {
			return nil, fmt.Errorf("range takes up to three integers")
		}
		b[i] = n
	}
	lo, hi, step := 0, b[0], b[2]
	if len(args) >= 2 {
		lo, hi = b[0], b[1]
	}
	if step == 0 {
		return nil, fmt.Errorf("range() arg 3 must not be zero")
	}
	if n := (hi - lo) / step; n > 1<<20 {
		return nil, fmt.Errorf("range of %d items exceeds the limit %d", n, 1<<20)
	}
	var out []any
	for i := lo; (step > 0 && i < hi) || (step < 0 && i > hi); i += step {
		out = append(out, i)
	}
	return out, nil
}

// strftimeNow formats the renderer's time with a C strftime format.
func strftimeNow(r *renderer, args []any, _ map[string]any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("strftime_now takes one format")
	}
	f, _ := args[0].(string)
	t := r.now
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case '-':
			if i+1 < len(f) && f[i+1] == 'd' {
				i++
				fmt.Fprintf(&b, "%d", t.Day())
			}
		case 'B':
			b.WriteString(t.Month().String())
		case 'b':
			b.WriteString(t.Month().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String(), nil
}

// call evaluates f(args): a global function, a macro or caller().
func (r *renderer) call(e *expr) (any, error) {
	fn, err := r.eval(e.args[0])
	if err != nil {
		return nil, err
	}
	args, err := r.evalAll(e.args[1:])
	if err != nil {
		return nil, err
	}
	kw, err := r.evalKw(e.kw)
	if err != nil {
		return nil, err
	}
	switch f := fn.(type) {
	case builtin:
		v, err := f(r, args, kw)
		var msg raised
		switch {
		case errors.As(err, &msg):
			return nil, fmt.Errorf("chat template %s:%d: %w: %s", r.name, e.line, errRaised, string(msg))
		case err != nil && !strings.HasPrefix(err.Error(), "chat template "):
			return nil, r.errorf(e.line, "%v", err)
		}
		return v, err
	case *macro:
		return r.callMacro(f, args, kw, e.line)
	case undefined:
		return nil, r.errorf(e.line, "%s", f.hint)
	}
	return nil, r.errorf(e.line, "'%s' object is not callable", typeName(fn))
}

// callMacro runs a macro with its own scope over the globals.
func (r *renderer) callMacro(m *macro, args []any, kw map[string]any, line int) (any, error) {
	n := m.n
	if len(args) > len(n.params) {
		return nil, r.errorf(line, "macro '%s' takes not more than %d argument(s)", n.name, len(n.params))
	}
	scope := map[string]any{}
	for i, p := range n.params {
		switch v, ok := kw[p]; {
		case i < len(args):
			scope[p] = args[i]
		case ok:
			scope[p] = v
		case n.defaults[i] != nil:
			d, err := r.eval(n.defaults[i])
			if err != nil {
				return nil, err
			}
			scope[p] = d
		default:
			scope[p] = undefined{hint: fmt.Sprintf("'%s' is undefined", p)}
		}
	}
	scope[n.name] = m
	if len(r.caller) > 0 {
		cb := r.caller[len(r.caller)-1]
		scope["caller"] = builtin(func(r *renderer, args []any, _ map[string]any) (any, error) {
			inner := map[string]any{}
			for i, p := range cb.params {
				if i < len(args) {
					inner[p] = args[i]
				}
			}
			saved := r.caller
			r.caller = nil
			r.scopes = append(r.scopes, inner)
			s, err := r.capture(cb.body)
			r.scopes = r.scopes[:len(r.scopes)-1]
			r.caller = saved
			return s, err
		})
	}
	saved := r.scopes
	r.scopes = []map[string]any{saved[0], scope}
	savedCaller := r.caller
	r.caller = nil
	s, err := r.capture(n.body)
	r.scopes, r.caller = saved, savedCaller
	return s, err
}

// pyIsSpace is Python's str.isspace for one rune.
func pyIsSpace(c rune) bool {
	return unicode.IsSpace(c) || (c >= 0x1c && c <= 0x1f)
}

// pyStrip is Python's str.strip/lstrip/rstrip: Unicode whitespace, or the
// characters of chars.
func pyStrip(s string, chars *string, left, right bool) string {
	cut := pyIsSpace
	if chars != nil {
		set := *chars
		cut = func(c rune) bool { return strings.ContainsRune(set, c) }
	}
	if left {
		s = strings.TrimLeftFunc(s, cut)
	}
	if right {
		s = strings.TrimRightFunc(s, cut)
	}
	return s
}
