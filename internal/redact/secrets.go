package redact

import (
	"regexp"
	"strings"
	"unicode"
)

// Secrets that text carries without servecmp knowing them (a launch
// command line, a server's answer, a manifest value) are found by their
// shape and masked by Secrets and Command:
//
//   - the value of an assignment or a flag whose name says it holds a
//     secret: NAME=VALUE, NAME:VALUE, "NAME": "VALUE", --NAME VALUE and
//     --NAME=VALUE, where NAME, split into words at _ - . and case
//     changes, has a word token, secret, password, passwd, apikey,
//     credential(s), auth or authorization, or ends in key after another
//     word (api_key, VLLM_API_KEY, accessKey); a name whose last word is
//     file, path, dir, id, ids, count, len, length, size, type, kind or
//     name (--api-key-file, token_ids) holds no secret itself;
//   - a bearer or basic credential (Authorization: Bearer X);
//   - well-known key shapes: sk-… (OpenAI), hf_… (Hugging Face),
//     ghp_…/gho_…/ghu_…/ghs_…/ghr_… (GitHub), glpat-… (GitLab),
//     xox?-… (Slack), AKIA… (AWS access key ids);
//   - URL credentials (URL) and secret-named query parameters
//     (?api_key=X, &token=X).

// secretWords make a name secret on their own; keyWords only after
// another word (a bare "key" is too common: "key=value").
var (
	secretWords = map[string]bool{"token": true, "secret": true, "password": true, "passwd": true,
		"apikey": true, "credential": true, "credentials": true, "auth": true, "authorization": true}
	keyWords = map[string]bool{"key": true}
	// plainEnds end a name that holds no secret itself.
	plainEnds = map[string]bool{"file": true, "path": true, "dir": true, "id": true, "ids": true, "count": true,
		"len": true, "length": true, "size": true, "type": true, "kind": true, "name": true, "names": true}
)

// SecretName reports whether an environment variable, flag, field or
// query parameter called name holds a secret (see Secrets). Leading
// dashes are ignored.
func SecretName(name string) bool {
	words := nameWords(strings.TrimLeft(name, "-"))
	if len(words) == 0 || plainEnds[words[len(words)-1]] {
		return false
	}
	for i, w := range words {
		if secretWords[w] || (i > 0 && keyWords[w]) {
			return true
		}
	}
	return false
}

// nameWords splits a name into lower-case words at _ - . and at a change
// from lower to upper case (accessKey: access, key).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.':
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return words
}

var (
	// nameSepRE finds a name and what separates it from a value:
	// NAME=, NAME: (no blank before the colon), "NAME": , --NAME= and
	// --NAME followed by blanks.
	nameSepRE = regexp.MustCompile(`(--?[A-Za-z][A-Za-z0-9_.\-]*|\b[A-Za-z_][A-Za-z0-9_.\-]*)("?)(=|:[ \t]*|[ \t]+)`)
	bearerRE  = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{6,}`)
	shapeRE   = regexp.MustCompile(`\b(sk-[A-Za-z0-9_\-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|glpat-[A-Za-z0-9_\-]{20,}|xox[abprs]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16})\b`)
)

// Secrets returns s with every secret it can recognise by shape masked
// (see the comment above SecretName), and URL credentials masked.
func Secrets(s string) string {
	s = bearerRE.ReplaceAllString(s, "${1}${2}"+Mask)
	s = assignments(s)
	s = shapeRE.ReplaceAllString(s, Mask)
	if strings.Contains(s, "@") && strings.Contains(s, "://") {
		s = byHand(s)
	}
	return s
}

// assignments masks the values of secret-named assignments and flags.
func assignments(s string) string {
	var b strings.Builder
	pos := 0
	for pos < len(s) {
		m := nameSepRE.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		name, sep := s[pos+m[2]:pos+m[3]], s[pos+m[6]:pos+m[7]]
		end := pos + m[1]
		flag := strings.HasPrefix(name, "-")
		blank := strings.TrimSpace(sep) == ""
		n := valueLen(s[end:])
		if strings.HasPrefix(s[end:], Mask) { // masked already
			n = len(Mask)
		}
		switch {
		case !SecretName(name) || n == 0,
			blank && !flag,         // "token counts": words, not an assignment
			blank && s[end] == '-': // --auth --port 80: a switch
			b.WriteString(s[pos:end])
			pos = end
			continue
		}
		b.WriteString(s[pos:end])
		if q := s[end]; q == '"' || q == '\'' {
			b.WriteByte(q)
			b.WriteString(Mask)
			b.WriteByte(q)
		} else {
			b.WriteString(Mask)
		}
		pos = end + n
	}
	b.WriteString(s[pos:])
	return b.String()
}

// valueLen is the length of the value at the start of s: a quoted string
// (quotes included; to the end of s when unterminated) or a run of bytes
// up to a blank, quote, comma, semicolon, ampersand or closing bracket.
func valueLen(s string) int {
	if s == "" {
		return 0
	}
	if q := s[0]; q == '"' || q == '\'' {
		if i := strings.IndexByte(s[1:], q); i >= 0 {
			return i + 2
		}
		return len(s)
	}
	if i := strings.IndexAny(s, " \t\r\n\"',;&}])"); i >= 0 {
		return i
	}
	return len(s)
}

// Command returns a copy of a command's words with the secrets masked:
// the value of a secret-named NAME=VALUE word or --flag=VALUE, the word
// after a secret-named --flag (unless it is itself a flag), and whatever
// Secrets finds inside any word (a shell script given to sh -c).
func Command(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if i > 0 && isSecretFlag(words[i-1]) && !strings.HasPrefix(w, "-") {
			out[i] = Mask
			continue
		}
		if name, _, ok := strings.Cut(w, "="); ok && !strings.ContainsAny(w, " \t\n") && SecretName(name) {
			out[i] = name + "=" + Mask
			continue
		}
		out[i] = Secrets(w)
	}
	return out
}

// isSecretFlag reports whether w is a flag without a value (--api-key,
// not --api-key=X) whose name says its value is a secret.
func isSecretFlag(w string) bool {
	return strings.HasPrefix(w, "-") && !strings.Contains(w, "=") && SecretName(w)
}
