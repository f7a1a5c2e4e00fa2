package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/servecmp/servecmp/internal/budget"
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
	Vars                map[string]any // extra variables (tools, …), as decoded from JSON
}

// Budget of one rendering: a template is untrusted computation.
const (
	maxSteps  = 5_000_000 // statements, loop iterations and expressions evaluated
	maxDepth  = 256       // nested macro calls and expressions
	maxOutput = 64 << 20  // bytes of output, and of any one string value
)

// undefined is the value of a missing name or attribute; hint says what
// was missing, for the error when it is used.
type undefined struct{ hint string }

// namespace is the mutable object made by namespace(…).
type namespace map[string]any

// macro is a macro value: callable with positional and keyword arguments.
type macro struct {
	n      *macroNode
	caller *callNode // set when called from a call block
}

// errRaised marks raise_exception.
var errRaised = errors.New("template raised an exception")

// errBudget marks a rendering stopped by the budget (internal/budget, the
// one budget for untrusted computation).
var errBudget = budget.ErrExceeded

// Render produces the prompt text for msgs.
func (t *Template) Render(msgs []Message, opt Options) (string, error) {
	return t.RenderContext(context.Background(), msgs, opt)
}

// RenderContext is Render that stops when ctx is done.
func (t *Template) RenderContext(ctx context.Context, msgs []Message, opt Options) (string, error) {
	list := make([]any, len(msgs))
	for i, m := range msgs {
		d := newDictOf()
		d.set("role", m.Role)
		d.set("content", m.Content)
		list[i] = d
	}
	vars := map[string]any{
		"messages":              list,
		"add_generation_prompt": opt.AddGenerationPrompt,
		"bos_token":             opt.BOSToken,
		"eos_token":             opt.EOSToken,
	}
	for k, v := range opt.Vars {
		vars[k] = fromGo(v)
	}
	return t.render(ctx, vars, time.Now())
}

// RenderVars renders with the given variables (values as decoded from
// JSON, or dicts) and the time strftime_now formats.
func (t *Template) RenderVars(vars map[string]any, now time.Time) (string, error) {
	return t.render(context.Background(), vars, now)
}

func (t *Template) render(ctx context.Context, vars map[string]any, now time.Time) (out string, err error) {
	global := map[string]any{}
	for k, v := range vars {
		if _, ok := v.(*dict); !ok {
			v = fromGo(v)
		}
		global[k] = v
	}
	b := budget.New(ctx, "rendering", budget.Limits{Steps: maxSteps, Depth: maxDepth, Bytes: maxOutput})
	r := &renderer{name: t.name, scopes: []map[string]any{global}, b: b, now: now, out: &strings.Builder{}}
	defer func() {
		if p := recover(); p != nil { // a defect here must not end the process
			out, err = "", fmt.Errorf("chat template %s: internal error: %v", t.name, p)
		}
	}()
	if err := r.nodes(t.body); err != nil {
		var lc errLoopControl
		if errors.As(err, &lc) {
			return "", r.errorf(lc.line, "break or continue outside a loop")
		}
		return "", err
	}
	return r.out.String(), nil
}

type renderer struct {
	name   string
	scopes []map[string]any
	out    *strings.Builder
	b      *budget.Budget // steps, nesting depth, bytes written to every capture; the context
	now    time.Time
	caller []*callNode
}

func (r *renderer) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("chat template %s:%d: %s", r.name, line, fmt.Sprintf(format, args...))
}

// step counts one unit of work and checks the budget and, every
// budget.CheckEvery steps, the context.
func (r *renderer) step(line int) error {
	if err := r.b.Step(); err != nil {
		return r.budgetErr(line, err)
	}
	return nil
}

// budgetErr names the template and line of a budget's error (a limit
// passed, or the context ended).
func (r *renderer) budgetErr(line int, err error) error {
	return fmt.Errorf("chat template %s:%d: %w", r.name, line, err)
}

func (r *renderer) write(s string, line int) error {
	if err := r.b.Grow(int64(len(s))); err != nil {
		return r.budgetErr(line, err)
	}
	r.out.WriteString(s)
	return nil
}

// sized checks the size of a string value.
func (r *renderer) sized(s string, line int) (any, error) {
	if len(s) > maxOutput {
		return nil, fmt.Errorf("chat template %s:%d: %w: a string of more than %d bytes", r.name, line, errBudget, maxOutput)
	}
	return s, nil
}

func (r *renderer) lookup(name string) any {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if v, ok := r.scopes[i][name]; ok {
			return v
		}
	}
	if f, ok := builtinFuncs[name]; ok {
		return f
	}
	return undefined{hint: fmt.Sprintf("'%s' is undefined", name)}
}

func (r *renderer) nodes(ns []node) error {
	for _, n := range ns {
		if err := r.node(n); err != nil {
			return err
		}
	}
	return nil
}

// errLoopControl carries break and continue to the enclosing loop.
type errLoopControl struct {
	brk  bool
	line int
}

func (e errLoopControl) Error() string { return "loop control" }

func (r *renderer) node(n node) error {
	if err := r.step(0); err != nil {
		return err
	}
	switch n := n.(type) {
	case textNode:
		return r.write(n.text, 0)
	case outputNode:
		v, err := r.eval(n.e)
		if err != nil {
			return err
		}
		s, err := r.str(v, n.line)
		if err != nil {
			return err
		}
		return r.write(s, n.line)
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
	case macroNode:
		r.scopes[len(r.scopes)-1][n.name] = &macro{n: &n}
	case callNode:
		return r.callBlock(&n)
	case filterNode:
		return r.filterBlock(n)
	case blockNode:
		return r.nodes(n.body)
	case loopControl:
		return errLoopControl{brk: n.brk, line: n.line}
	}
	return nil
}

// capture renders body into a string.
func (r *renderer) capture(body []node) (string, error) {
	saved := r.out
	r.out = &strings.Builder{}
	err := r.nodes(body)
	s := r.out.String()
	r.out = saved
	return s, err
}

func (r *renderer) set(n setNode) error {
	var v any
	var err error
	if n.body != nil {
		v, err = r.capture(n.body)
	} else {
		v, err = r.eval(n.e)
	}
	if err != nil {
		return err
	}
	scope := r.scopes[len(r.scopes)-1]
	switch {
	case n.attr != "":
		ns, ok := r.lookup(n.names[0]).(namespace)
		if !ok {
			return r.errorf(n.line, "set %s.%s: %s is not a namespace", n.names[0], n.attr, n.names[0])
		}
		ns[n.attr] = v
	case len(n.names) == 1:
		scope[n.names[0]] = v
	default:
		items, err := iterate(v)
		if err != nil || len(items) != len(n.names) {
			return r.errorf(n.line, "set: cannot unpack %s into %d names", typeName(v), len(n.names))
		}
		for i, name := range n.names {
			scope[name] = items[i]
		}
	}
	return nil
}

func (r *renderer) filterBlock(n filterNode) error {
	body, err := r.capture(n.body)
	if err != nil {
		return err
	}
	r.scopes = append(r.scopes, map[string]any{"__body__": body})
	v, err := r.eval(n.f)
	r.scopes = r.scopes[:len(r.scopes)-1]
	if err != nil {
		return err
	}
	s, err := r.str(v, 0)
	if err != nil {
		return err
	}
	return r.write(s, 0)
}

func (r *renderer) callBlock(n *callNode) error {
	r.caller = append(r.caller, n)
	v, err := r.eval(n.call)
	r.caller = r.caller[:len(r.caller)-1]
	if err != nil {
		return err
	}
	s, err := r.str(v, n.line)
	if err != nil {
		return err
	}
	return r.write(s, n.line)
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
	if n.cond != nil {
		if items, err = r.filterLoop(n, items); err != nil {
			return err
		}
	}
	if len(items) == 0 {
		return r.nodes(n.elseBody)
	}
	for i, it := range items {
		if err := r.step(n.line); err != nil {
			return err
		}
		loop := &loopInfo{items: items, i: i}
		scope := map[string]any{"loop": loop}
		if err := bindLoopVars(scope, n.vars, it); err != nil {
			return r.errorf(n.line, "%v", err)
		}
		r.scopes = append(r.scopes, scope)
		err := r.nodes(n.body)
		r.scopes = r.scopes[:len(r.scopes)-1]
		var lc errLoopControl
		if errors.As(err, &lc) {
			if lc.brk {
				break
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// filterLoop keeps the items for which the loop's condition holds.
func (r *renderer) filterLoop(n forNode, items []any) ([]any, error) {
	var kept []any
	for _, it := range items {
		scope := map[string]any{}
		if err := bindLoopVars(scope, n.vars, it); err != nil {
			return nil, r.errorf(n.line, "%v", err)
		}
		r.scopes = append(r.scopes, scope)
		v, err := r.eval(n.cond)
		r.scopes = r.scopes[:len(r.scopes)-1]
		if err != nil {
			return nil, err
		}
		if truthy(v) {
			kept = append(kept, it)
		}
	}
	return kept, nil
}

func bindLoopVars(scope map[string]any, vars []string, it any) error {
	if len(vars) == 1 {
		scope[vars[0]] = it
		return nil
	}
	parts, err := iterate(it)
	if err != nil || len(parts) != len(vars) {
		return fmt.Errorf("for %s: cannot unpack %s", strings.Join(vars, ", "), typeName(it))
	}
	for i, v := range vars {
		scope[v] = parts[i]
	}
	return nil
}

// iterate lists the items of a list, the keys of a dict or the characters
// of a string; undefined and none iterate as empty.
func iterate(v any) ([]any, error) {
	switch v := v.(type) {
	case []any:
		return v, nil
	case *dict:
		return append([]any{}, v.orig...), nil
	case string:
		var out []any
		for _, c := range v {
			out = append(out, string(c))
		}
		return out, nil
	case undefined:
		return nil, nil
	}
	return nil, fmt.Errorf("'%s' object is not iterable", typeName(v))
}

// loopInfo is the loop variable of a for loop.
type loopInfo struct {
	items []any
	i     int
}

func (l *loopInfo) attr(name string) (any, bool) {
	i, n := l.i, len(l.items)
	switch name {
	case "index":
		return i + 1, true
	case "index0":
		return i, true
	case "first":
		return i == 0, true
	case "last":
		return i == n-1, true
	case "length":
		return n, true
	case "revindex":
		return n - i, true
	case "revindex0":
		return n - i - 1, true
	case "depth":
		return 1, true
	case "depth0":
		return 0, true
	case "previtem":
		if i > 0 {
			return l.items[i-1], true
		}
	case "nextitem":
		if i+1 < n {
			return l.items[i+1], true
		}
	case "cycle":
		return builtin(func(_ *renderer, args []any, _ map[string]any) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("loop.cycle needs arguments")
			}
			return args[i%len(args)], nil
		}), true
	}
	return nil, false
}
