package chat

// postfix parses attribute access, indexing, slicing and calls.
func (e *exprParser) postfix(x *expr) (*expr, error) {
	for {
		switch {
		case e.accept('o', "."):
			t := e.peek()
			if t.kind != 'n' {
				return nil, e.p.errorf("expected a name after \".\"")
			}
			e.i++
			if e.peek().kind == 'o' && e.peek().text == "(" {
				if !knownMethods[t.text] {
					return nil, e.p.errorf("unsupported method %q", t.text)
				}
				e.i++
				args, kw, err := e.callArgs()
				if err != nil {
					return nil, err
				}
				m := e.node("method", t.text, append([]*expr{x}, args...)...)
				m.kw = kw
				x = m
				continue
			}
			x = e.node("attr", t.text, x)
		case e.accept('o', "["):
			var err error
			if x, err = e.subscript(x); err != nil {
				return nil, err
			}
		case e.accept('o', "("):
			args, kw, err := e.callArgs()
			if err != nil {
				return nil, err
			}
			c := e.node("call", nil, append([]*expr{x}, args...)...)
			c.kw = kw
			x = c
		default:
			return x, nil
		}
	}
}

// subscript parses the inside of x[...] after "[".
func (e *exprParser) subscript(x *expr) (*expr, error) {
	var lo, hi *expr
	var err error
	if e.peek().text != ":" {
		if lo, err = e.expression(); err != nil {
			return nil, err
		}
	}
	if !e.accept('o', ":") {
		if err := e.expect("]"); err != nil {
			return nil, err
		}
		return e.node("index", nil, x, lo), nil
	}
	if t := e.peek(); t.text != "]" && t.text != ":" {
		if hi, err = e.expression(); err != nil {
			return nil, err
		}
	}
	var step *expr
	if e.accept('o', ":") {
		if step, err = e.expression(); err != nil {
			return nil, err
		}
	}
	if err := e.expect("]"); err != nil {
		return nil, err
	}
	return e.node("slice", nil, x, lo, hi, step), nil
}

// callArgs parses arguments after "(" up to ")": positional, then k=v.
func (e *exprParser) callArgs() ([]*expr, map[string]*expr, error) {
	var args []*expr
	kw := map[string]*expr{}
	for !e.accept('o', ")") {
		if t := e.peek(); t.kind == 'n' && e.i+1 < len(e.toks) && e.toks[e.i+1].text == "=" {
			e.i += 2
			v, err := e.expression()
			if err != nil {
				return nil, nil, err
			}
			kw[t.text] = v
		} else {
			v, err := e.expression()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, v)
		}
		if !e.accept('o', ",") {
			if err := e.expect(")"); err != nil {
				return nil, nil, err
			}
			break
		}
	}
	return args, kw, nil
}

// filtersAndTests parses "| filter(args)" and "is [not] test(arg)" chains.
func (e *exprParser) filtersAndTests(x *expr) (*expr, error) {
	for {
		switch {
		case e.accept('o', "|"):
			t := e.peek()
			if t.kind != 'n' || !knownFilters[t.text] {
				return nil, e.p.errorf("unsupported filter %q", t.text)
			}
			e.i++
			f := e.node("filter", t.text, x)
			if e.accept('o', "(") {
				args, kw, err := e.callArgs()
				if err != nil {
					return nil, err
				}
				f.args = append(f.args, args...)
				f.kw = kw
			}
			x = f
		case e.accept('n', "is"):
			neg := e.accept('n', "not")
			t := e.peek()
			if t.kind == 'n' && (t.text == "none" || t.text == "true" || t.text == "false") {
				// "is none", "is true": names the lexer reads as literals too
			} else if t.kind != 'n' || !knownTests[t.text] {
				return nil, e.p.errorf("unsupported test %q", t.text)
			}
			e.i++
			tn := e.node("test", t.text, x)
			tn.not = neg
			if e.accept('o', "(") {
				args, _, err := e.callArgs()
				if err != nil {
					return nil, err
				}
				tn.args = append(tn.args, args...)
			} else if k := e.peek().kind; k == 's' || k == 'i' || k == 'f' || (k == 'n' && !isKeyword(e.peek().text)) {
				arg, err := e.primary() // "x is equalto 3"
				if err != nil {
					return nil, err
				}
				tn.args = append(tn.args, arg)
			}
			x = tn
		default:
			return x, nil
		}
	}
}

// isKeyword reports the words that end an operand.
func isKeyword(w string) bool {
	switch w {
	case "and", "or", "not", "if", "else", "in", "is":
		return true
	}
	return false
}
