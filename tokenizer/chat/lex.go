package chat

import (
	"fmt"
	"strings"
)

// segment is one piece of a template: text, an output tag or a statement.
type segment struct {
	kind byte // 't' text, 'e' {{ }}, 's' {% %}
	text string
	line int
}

// lexTemplate cuts src into segments, applying whitespace control,
// trim_blocks and lstrip_blocks.
func lexTemplate(name, src string) ([]segment, error) {
	var segs []segment
	line := 1
	for i := 0; i < len(src); {
		j := nextTag(src, i)
		if j < 0 {
			segs = append(segs, segment{kind: 't', text: src[i:], line: line})
			break
		}
		text := src[i:j]
		kind := src[j+1]
		k := j + 2
		switch {
		case k < len(src) && src[k] == '-':
			text = strings.TrimRight(text, " \t\r\n")
			k++
		case k < len(src) && src[k] == '+':
			k++
		case kind != '{':
			text = lstripBlock(text, i == 0 || src[i-1] == '\n')
		}
		if text != "" {
			segs = append(segs, segment{kind: 't', text: text, line: line})
		}
		line += strings.Count(src[i:j], "\n")
		e := findCloser(src[k:], kind)
		if e < 0 {
			return nil, fmt.Errorf("%s:%d: unclosed tag", name, line)
		}
		content := src[k : k+e]
		next := k + e + 2
		if strings.HasSuffix(content, "-") {
			content = content[:len(content)-1]
			for next < len(src) && strings.IndexByte(" \t\r\n", src[next]) >= 0 {
				next++
			}
		} else if kind != '{' && next < len(src) && src[next] == '\n' {
			next++ // trim_blocks
		}
		switch kind {
		case '{':
			segs = append(segs, segment{kind: 'e', text: content, line: line})
		case '%':
			segs = append(segs, segment{kind: 's', text: content, line: line})
		}
		line += strings.Count(src[j:next], "\n")
		i = next
	}
	return segs, nil
}

// nextTag finds the next "{{", "{%" or "{#" at or after i.
func nextTag(src string, i int) int {
	for {
		p := strings.IndexByte(src[i:], '{')
		if p < 0 || i+p+1 >= len(src) {
			return -1
		}
		p += i
		if c := src[p+1]; c == '{' || c == '%' || c == '#' {
			return p
		}
		i = p + 1
	}
}

// findCloser returns the offset of the tag's closer in s, skipping quoted
// strings inside {{ }} and {% %}.
func findCloser(s string, kind byte) int {
	closer := map[byte]string{'{': "}}", '%': "%}", '#': "#}"}[kind]
	if kind == '#' {
		return strings.Index(s, closer)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case strings.HasPrefix(s[i:], closer):
			return i
		}
	}
	return -1
}

// lstripBlock drops spaces and tabs between the last line start and a
// block tag; lineStart says whether text itself starts a line.
func lstripBlock(text string, lineStart bool) string {
	nl := strings.LastIndexByte(text, '\n')
	if nl < 0 && !lineStart {
		return text
	}
	if strings.Trim(text[nl+1:], " \t") == "" {
		return text[:nl+1]
	}
	return text
}

// token is one lexical token inside a tag.
type token struct {
	kind byte // 'n' name, 's' string, 'i' int, 'f' float, 'o' operator, 0 end
	text string
}

var operators = []string{"//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "(", ")", "[", "]", "{", "}", ".", ",", ":", "|", "="}

// lexExpr splits tag content into tokens.
func lexExpr(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'' || c == '"':
			str, n, err := lexString(s[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{'s', str})
			i += n
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '_') {
				j++
			}
			kind := byte('i')
			if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
				for j++; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
				}
				kind = 'f'
			}
			toks = append(toks, token{kind, s[i:j]})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			toks = append(toks, token{'n', s[i:j]})
			i = j
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected character %q", c)
			}
			toks = append(toks, token{'o', op})
			i += len(op)
		}
	}
	return toks, nil
}

// lexString reads a quoted string literal and returns its value and length.
func lexString(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c == q {
			return b.String(), i + 1, nil
		}
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"':
				b.WriteByte(s[i])
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(c)
	}
	return "", 0, fmt.Errorf("unterminated string")
}
