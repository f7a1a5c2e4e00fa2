package chat

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/internal/infile"
)

// Template is a parsed chat template.
type Template struct {
	name string
	body []node
}

// node is a template statement.
type node interface{}

type textNode struct{ text string }

// blockNode renders its body (the generation block).
type blockNode struct{ body []node }

type outputNode struct {
	e    *expr
	line int
}

type ifNode struct {
	conds  []*expr
	bodies [][]node // one per cond, then the else body if any
}

type forNode struct {
	cond     *expr // "for x in y if cond"
	vars     []string
	iter     *expr
	body     []node
	elseBody []node
	line     int
}

type setNode struct {
	names []string // one name, or several to unpack ("set a, b = …")
	attr  string   // set for "set ns.attr = …"
	e     *expr
	body  []node // "set name %}…{% endset": the rendered body
	line  int
}

type macroNode struct {
	name     string
	params   []string
	defaults []*expr // nil where a parameter has no default
	body     []node
	line     int
}

// callNode is "call(params) macro(args) %}body{% endcall": the body is
// the macro's caller().
type callNode struct {
	call   *expr
	params []string
	body   []node
	line   int
}

// filterNode is "filter f(args) %}body{% endfilter".
type filterNode struct {
	f    *expr // a filter expression whose first argument is the body
	body []node
}

type loopControl struct {
	brk  bool
	line int
}

// expr is an expression node; op says which fields are used.
type expr struct {
	op   string // lit name attr index slice call method filter test not neg bin and or cond list dict
	val  any    // literal value, name, attribute, filter/test/function/method name, binary operator
	args []*expr
	kw   map[string]*expr
	not  bool // "is not"
	line int
}

var (
	knownFilters = set("trim", "length", "count", "lower", "upper", "string", "first", "last", "join", "default", "d", "items", "tojson",
		"reject", "select", "selectattr", "rejectattr", "map", "list", "safe", "e", "escape", "dictsort", "indent", "unique", "replace",
		"sort", "int", "float", "abs", "capitalize", "title", "reverse", "sum", "max", "min", "wordcount", "from_json", "fromjson", "round", "batch")
	knownTests = set("defined", "undefined", "none", "string", "number", "integer", "float", "mapping", "iterable", "sequence", "boolean",
		"true", "false", "equalto", "eq", "ne", "gt", "ge", "lt", "le", "greaterthan", "lessthan", "in", "odd", "even", "divisibleby",
		"sameas", "callable", "lower", "upper")
	knownMethods = set("strip", "lstrip", "rstrip", "lower", "upper", "title", "capitalize", "startswith", "endswith", "split", "rsplit",
		"splitlines", "replace", "find", "rfind", "count", "join", "format", "isdigit", "isalpha", "isspace", "islower", "isupper",
		"items", "get", "keys", "values", "append", "pop", "copy", "update", "index")
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// ParseFile reads and parses a template file.
func ParseFile(path string) (*Template, error) {
	src, err := infile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("chat template: %v", err)
	}
	return Parse(path, string(src))
}

// Parse parses template source; name (the file) prefixes every error.
func Parse(name, src string) (*Template, error) {
	segs, err := lexTemplate(name, src)
	if err != nil {
		return nil, fmt.Errorf("chat template %v", err)
	}
	p := &parser{name: name, segs: segs}
	body, end, err := p.body()
	if err != nil {
		return nil, fmt.Errorf("chat template %v", err)
	}
	if end != "" {
		return nil, fmt.Errorf("chat template %s:%d: unexpected {%% %s %%}", name, p.line, end)
	}
	return &Template{name: name, body: body}, nil
}

type parser struct {
	loops int // enclosing for loops
	depth int // nested blocks and expressions
	name  string
	segs  []segment
	pos   int
	line  int
	stmt  []token // tokens of the statement that ended the last body
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, p.line, fmt.Sprintf(format, args...))
}

// body parses nodes up to a statement it does not own (endif, else, …),
// which it returns with its tokens left in p.stmt; "" at the end.
func (p *parser) body() ([]node, string, error) {
	if p.depth++; p.depth > maxParseDepth {
		return nil, "", p.errorf("blocks nested deeper than %d", maxParseDepth)
	}
	defer func() { p.depth-- }()
	var nodes []node
	for p.pos < len(p.segs) {
		s := p.segs[p.pos]
		p.pos++
		p.line = s.line
		switch s.kind {
		case 't':
			nodes = append(nodes, textNode{s.text})
			continue
		case 'e':
			e, err := p.exprTag(s.text)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, outputNode{e: e, line: s.line})
			continue
		}
		toks, err := lexExpr(s.text)
		if err != nil || len(toks) == 0 || toks[0].kind != 'n' {
			return nil, "", p.errorf("bad statement {%% %s %%}", strings.TrimSpace(s.text))
		}
		kw := toks[0].text
		n, err := p.statement(kw, toks[1:])
		if err != nil {
			return nil, "", err
		}
		if n == nil {
			p.stmt = toks[1:]
			return nodes, kw, nil
		}
		nodes = append(nodes, n)
	}
	return nodes, "", nil
}

// statement parses one statement; nil, nil means a closing keyword.
func (p *parser) statement(kw string, toks []token) (node, error) {
	switch kw {
	case "if":
		return p.ifStmt(toks)
	case "for":
		return p.forStmt(toks)
	case "set":
		return p.setStmt(toks)
	case "macro":
		return p.macroStmt(toks)
	case "call":
		return p.callStmt(toks)
	case "filter":
		return p.filterStmt(toks)
	case "generation":
		body, end, err := p.body()
		if err != nil {
			return nil, err
		}
		if end != "endgeneration" {
			return nil, p.errorf("{%% generation %%} not closed by {%% endgeneration %%}")
		}
		return blockNode{body}, nil
	case "break", "continue":
		if p.loops == 0 {
			return nil, p.errorf("{%% %s %%} outside a loop", kw)
		}
		return loopControl{brk: kw == "break", line: p.line}, nil
	case "elif", "else", "endif", "endfor", "endmacro", "endcall", "endfilter", "endset", "endgeneration":
		return nil, nil
	}
	return nil, p.errorf("unsupported statement %q", kw)
}

func (p *parser) ifStmt(toks []token) (node, error) {
	n := ifNode{}
	cond, err := p.fullExpr(toks)
	for {
		if err != nil {
			return nil, err
		}
		n.conds = append(n.conds, cond)
		body, end, err := p.body()
		if err != nil {
			return nil, err
		}
		n.bodies = append(n.bodies, body)
		switch end {
		case "elif":
			cond, err = p.fullExpr(p.stmt)
			continue
		case "else":
			body, end, err := p.body()
			if err != nil {
				return nil, err
			}
			n.bodies = append(n.bodies, body)
			if end != "endif" {
				return nil, p.errorf("{%% else %%} not closed by {%% endif %%}")
			}
			return n, nil
		case "endif":
			return n, nil
		}
		return nil, p.errorf("{%% if %%} not closed by {%% endif %%}")
	}
}

func (p *parser) forStmt(toks []token) (node, error) {
	n := forNode{line: p.line}
	i := 0
	for ; i < len(toks) && !(toks[i].kind == 'n' && toks[i].text == "in"); i++ {
		if toks[i].kind == 'n' {
			n.vars = append(n.vars, toks[i].text)
		} else if toks[i].text != "," {
			return nil, p.errorf("bad loop variables")
		}
	}
	if i == len(toks) || len(n.vars) == 0 || len(n.vars) > 2 {
		return nil, p.errorf("bad for statement")
	}
	rest := toks[i+1:]
	for k := len(rest) - 1; k > 0; k-- {
		if rest[k].kind == 'n' && rest[k].text == "if" && !inlineIf(rest[:k]) {
			cond, err := p.fullExpr(rest[k+1:])
			if err != nil {
				return nil, err
			}
			n.cond, rest = cond, rest[:k]
			break
		}
	}
	iter, err := p.fullExpr(rest)
	if err != nil {
		return nil, err
	}
	n.iter = iter
	p.loops++
	body, end, err := p.body()
	p.loops--
	if err != nil {
		return nil, err
	}
	n.body = body
	if end == "else" {
		if n.elseBody, end, err = p.body(); err != nil {
			return nil, err
		}
	}
	if end != "endfor" {
		return nil, p.errorf("{%% for %%} not closed by {%% endfor %%}")
	}
	return n, nil
}

func (p *parser) setStmt(toks []token) (node, error) {
	n := setNode{line: p.line}
	i := 0
	for ; i < len(toks) && toks[i].kind == 'n'; i++ {
		n.names = append(n.names, toks[i].text)
		if i+1 < len(toks) && toks[i+1].text == "," {
			i++
			continue
		}
		i++
		break
	}
	if len(n.names) == 0 {
		return nil, p.errorf("bad set statement")
	}
	rest := toks[i:]
	if len(n.names) == 1 && len(rest) >= 2 && rest[0].text == "." && rest[1].kind == 'n' {
		n.attr = rest[1].text
		rest = rest[2:]
	}
	if len(rest) == 0 && len(n.names) == 1 && n.attr == "" { // set block
		body, end, err := p.body()
		if err != nil {
			return nil, err
		}
		if end != "endset" {
			return nil, p.errorf("{%% set %%} block not closed by {%% endset %%}")
		}
		n.body = body
		return n, nil
	}
	if len(rest) == 0 || rest[0].kind != 'o' || rest[0].text != "=" {
		return nil, p.errorf("bad set statement (want set name = expr)")
	}
	e, err := p.fullExpr(rest[1:])
	if err != nil {
		return nil, err
	}
	n.e = e
	return n, nil
}

// maxParseDepth bounds nested blocks and expressions, so that a hostile
// template cannot exhaust the stack.
const maxParseDepth = 200

// inlineIf reports whether toks end inside an unfinished "x if c else y"
// (an "if" of a loop filter has no "else" after it).
func inlineIf(toks []token) bool {
	depth := 0
	for _, t := range toks {
		if t.kind == 'o' && (t.text == "(" || t.text == "[" || t.text == "{") {
			depth++
		}
		if t.kind == 'o' && (t.text == ")" || t.text == "]" || t.text == "}") {
			depth--
		}
	}
	return depth != 0
}

// macroStmt parses "macro name(a, b=default)".
func (p *parser) macroStmt(toks []token) (node, error) {
	if len(toks) < 3 || toks[0].kind != 'n' || toks[1].text != "(" {
		return nil, p.errorf("bad macro statement")
	}
	n := macroNode{name: toks[0].text, line: p.line}
	var err error
	if n.params, n.defaults, err = p.params(toks[2:]); err != nil {
		return nil, err
	}
	body, end, err := p.body()
	if err != nil {
		return nil, err
	}
	if end != "endmacro" {
		return nil, p.errorf("{%% macro %%} not closed by {%% endmacro %%}")
	}
	n.body = body
	return n, nil
}

// params parses "a, b=expr)" after the opening parenthesis.
func (p *parser) params(toks []token) ([]string, []*expr, error) {
	ep := &exprParser{p: p, toks: toks}
	var names []string
	var defs []*expr
	for !ep.accept('o', ")") {
		t := ep.peek()
		if t.kind != 'n' {
			return nil, nil, p.errorf("bad parameter list")
		}
		ep.i++
		var def *expr
		if ep.accept('o', "=") {
			var err error
			if def, err = ep.expression(); err != nil {
				return nil, nil, err
			}
		}
		names, defs = append(names, t.text), append(defs, def)
		if !ep.accept('o', ",") {
			if err := ep.expect(")"); err != nil {
				return nil, nil, err
			}
			break
		}
	}
	if ep.i < len(toks) {
		return nil, nil, p.errorf("unexpected %q after the parameters", toks[ep.i].text)
	}
	return names, defs, nil
}

// callStmt parses "call[(params)] expr".
func (p *parser) callStmt(toks []token) (node, error) {
	n := callNode{line: p.line}
	if len(toks) > 0 && toks[0].text == "(" {
		k := 1
		for k < len(toks) && toks[k].text != ")" {
			k++
		}
		var err error
		if n.params, _, err = p.params(toks[1 : k+1]); err != nil {
			return nil, err
		}
		toks = toks[min(k+1, len(toks)):]
	}
	e, err := p.fullExpr(toks)
	if err != nil {
		return nil, err
	}
	n.call = e
	body, end, err := p.body()
	if err != nil {
		return nil, err
	}
	if end != "endcall" {
		return nil, p.errorf("{%% call %%} not closed by {%% endcall %%}")
	}
	n.body = body
	return n, nil
}

// filterStmt parses "filter name(args)": the filters apply to the body.
func (p *parser) filterStmt(toks []token) (node, error) {
	src := append([]token{{'n', "__body__"}, {'o', "|"}}, toks...)
	e, err := p.fullExpr(src)
	if err != nil {
		return nil, err
	}
	body, end, err := p.body()
	if err != nil {
		return nil, err
	}
	if end != "endfilter" {
		return nil, p.errorf("{%% filter %%} not closed by {%% endfilter %%}")
	}
	return filterNode{f: e, body: body}, nil
}

func (p *parser) exprTag(text string) (*expr, error) {
	toks, err := lexExpr(text)
	if err != nil {
		return nil, p.errorf("%v", err)
	}
	return p.fullExpr(toks)
}

// fullExpr parses toks as exactly one expression.
func (p *parser) fullExpr(toks []token) (*expr, error) {
	ep := &exprParser{p: p, toks: toks}
	e, err := ep.expression()
	if err != nil {
		return nil, err
	}
	if ep.i < len(toks) {
		return nil, p.errorf("unexpected %q in expression", toks[ep.i].text)
	}
	return e, nil
}

// exprParser is a recursive-descent parser over one tag's tokens, with
// Jinja's precedence: conditional, or, and, not, comparison, + -, ~,
// * / // %, unary -, then postfix (. [] ()) with filters and tests.
type exprParser struct {
	p    *parser
	toks []token
	i    int
}

func (e *exprParser) peek() token {
	if e.i < len(e.toks) {
		return e.toks[e.i]
	}
	return token{}
}

func (e *exprParser) accept(kind byte, text string) bool {
	t := e.peek()
	if t.kind == kind && t.text == text {
		e.i++
		return true
	}
	return false
}

func (e *exprParser) expect(text string) error {
	if !e.accept('o', text) {
		return e.p.errorf("expected %q, found %q", text, e.peek().text)
	}
	return nil
}

func (e *exprParser) node(op string, val any, args ...*expr) *expr {
	return &expr{op: op, val: val, args: args, line: e.p.line}
}

func (e *exprParser) expression() (*expr, error) {
	if e.p.depth++; e.p.depth > maxParseDepth {
		return nil, e.p.errorf("expression nested deeper than %d", maxParseDepth)
	}
	defer func() { e.p.depth-- }()
	x, err := e.or()
	if err != nil || !e.accept('n', "if") {
		return x, err
	}
	cond, err := e.or()
	if err != nil {
		return nil, err
	}
	alt := e.node("lit", nil)
	if e.accept('n', "else") {
		if alt, err = e.expression(); err != nil {
			return nil, err
		}
	}
	return e.node("cond", nil, cond, x, alt), nil
}

func (e *exprParser) or() (*expr, error) {
	x, err := e.and()
	for err == nil && e.accept('n', "or") {
		var y *expr
		if y, err = e.and(); err == nil {
			x = e.node("or", nil, x, y)
		}
	}
	return x, err
}

func (e *exprParser) and() (*expr, error) {
	x, err := e.not()
	for err == nil && e.accept('n', "and") {
		var y *expr
		if y, err = e.not(); err == nil {
			x = e.node("and", nil, x, y)
		}
	}
	return x, err
}

func (e *exprParser) not() (*expr, error) {
	if e.accept('n', "not") {
		if e.p.depth++; e.p.depth > maxParseDepth {
			return nil, e.p.errorf("expression nested deeper than %d", maxParseDepth)
		}
		defer func() { e.p.depth-- }()
		x, err := e.not()
		if err != nil {
			return nil, err
		}
		return e.node("not", nil, x), nil
	}
	return e.compare()
}

func (e *exprParser) compare() (*expr, error) {
	x, err := e.binary(0)
	for err == nil {
		t := e.peek()
		op := ""
		switch {
		case t.kind == 'o' && (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == ">" || t.text == "<=" || t.text == ">="):
			op = t.text
		case t.kind == 'n' && t.text == "in":
			op = "in"
		case t.kind == 'n' && t.text == "not" && e.i+1 < len(e.toks) && e.toks[e.i+1].text == "in":
			op = "not in"
			e.i++
		default:
			return x, nil
		}
		e.i++
		var y *expr
		if y, err = e.binary(0); err == nil {
			x = e.node("bin", op, x, y)
		}
	}
	return nil, err
}

// binaryLevels lists the arithmetic operators by rising precedence.
var binaryLevels = [][]string{{"+", "-"}, {"~"}, {"*", "/", "//", "%"}}

func (e *exprParser) binary(level int) (*expr, error) {
	if level == len(binaryLevels) {
		return e.unary()
	}
	x, err := e.binary(level + 1)
	for err == nil {
		t := e.peek()
		found := false
		for _, op := range binaryLevels[level] {
			found = found || (t.kind == 'o' && t.text == op)
		}
		if !found {
			return x, nil
		}
		e.i++
		var y *expr
		if y, err = e.binary(level + 1); err == nil {
			x = e.node("bin", t.text, x, y)
		}
	}
	return nil, err
}

func (e *exprParser) unary() (*expr, error) {
	if e.accept('o', "-") {
		if e.p.depth++; e.p.depth > maxParseDepth {
			return nil, e.p.errorf("expression nested deeper than %d", maxParseDepth)
		}
		defer func() { e.p.depth-- }()
		x, err := e.unary()
		if err != nil {
			return nil, err
		}
		return e.node("neg", nil, x), nil
	}
	x, err := e.primary()
	if err != nil {
		return nil, err
	}
	if x, err = e.postfix(x); err != nil {
		return nil, err
	}
	return e.filtersAndTests(x)
}

func (e *exprParser) primary() (*expr, error) {
	t := e.peek()
	e.i++
	switch t.kind {
	case 's':
		s := t.text
		for e.peek().kind == 's' { // adjacent literals concatenate
			s += e.peek().text
			e.i++
		}
		return e.node("lit", s), nil
	case 'i':
		v, err := strconv.Atoi(strings.ReplaceAll(t.text, "_", ""))
		if err != nil {
			return nil, e.p.errorf("bad integer %q", t.text)
		}
		return e.node("lit", v), nil
	case 'f':
		v, _ := strconv.ParseFloat(t.text, 64)
		return e.node("lit", v), nil
	case 'n':
		switch t.text {
		case "true", "True":
			return e.node("lit", true), nil
		case "false", "False":
			return e.node("lit", false), nil
		case "none", "None":
			return e.node("lit", nil), nil
		}
		return e.node("name", t.text), nil
	case 'o':
		return e.bracketed(t.text)
	}
	return nil, e.p.errorf("expression ends unexpectedly")
}

// bracketed parses (expr), [list] and {dict} literals.
func (e *exprParser) bracketed(open string) (*expr, error) {
	switch open {
	case "(":
		if e.accept('o', ")") {
			return e.node("list", nil), nil
		}
		x, err := e.expression()
		if err != nil {
			return nil, err
		}
		if !e.accept('o', ",") {
			return x, e.expect(")")
		}
		rest, err := e.list(")") // a tuple
		if err != nil {
			return nil, err
		}
		return e.node("list", nil, append([]*expr{x}, rest...)...), nil
	case "[":
		items, err := e.list("]")
		if err != nil {
			return nil, err
		}
		return e.node("list", nil, items...), nil
	case "{":
		var items []*expr
		for !e.accept('o', "}") {
			k, err := e.expression()
			if err != nil {
				return nil, err
			}
			if err := e.expect(":"); err != nil {
				return nil, err
			}
			v, err := e.expression()
			if err != nil {
				return nil, err
			}
			items = append(items, k, v)
			if !e.accept('o', ",") {
				if err := e.expect("}"); err != nil {
					return nil, err
				}
				break
			}
		}
		return e.node("dict", nil, items...), nil
	}
	return nil, e.p.errorf("unexpected %q", open)
}

// list parses comma-separated expressions up to the closer.
func (e *exprParser) list(closer string) ([]*expr, error) {
	var items []*expr
	for !e.accept('o', closer) {
		x, err := e.expression()
		if err != nil {
			return nil, err
		}
		items = append(items, x)
		if !e.accept('o', ",") {
			if err := e.expect(closer); err != nil {
				return nil, err
			}
			break
		}
	}
	return items, nil
}
