// Package redact keeps secrets out of what servecmp prints and stores:
// credentials in URLs (user and password of http://user:pass@host),
// secret strings such as an API key inside text a server sent back, and
// secrets recognised by their shape in text servecmp did not make (a
// launch command line's VLLM_API_KEY=..., --api-key ..., sk-...;
// secrets.go).
//
// Invariants:
//   - URL never returns the userinfo of its input, parseable or not.
//   - Clip scrubs before it cuts: no prefix of a secret longer than
//     MinSecret-1 bytes survives at the cut (a secret straddling the
//     boundary is removed whole, then the text is cut).
package redact

import (
	"net/url"
	"strings"
)

// Mask replaces a secret or a URL's userinfo.
const Mask = "[redacted]"

// MinSecret is the shortest secret Text scrubs; shorter ones would match
// ordinary text. An API key is far longer.
const MinSecret = 4

// URL returns s with any userinfo (user, password or token before "@" in
// the authority) replaced by Mask. A string that does not parse as a URL
// is treated the same way by hand, so a malformed URL leaks nothing
// either.
func URL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		i := strings.Index(u.String(), "://")
		if i >= 0 {
			t := u.String()
			return t[:i+3] + Mask + "@" + t[i+3:]
		}
		return u.String()
	} else if err == nil && !strings.Contains(s, "@") {
		return s
	}
	if !strings.Contains(s, "://") {
		// No scheme ("user:pass@host:80"): the authority runs to the
		// first path, query or fragment mark.
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		if at := strings.LastIndex(s[:end], "@"); at >= 0 {
			return Mask + s[at:]
		}
		return s
	}
	return byHand(s)
}

// byHand masks every "scheme://userinfo@" in s without parsing it as a
// URL: text that embeds URLs (an error message) or a malformed URL.
func byHand(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, "/?# \t\n\"'")
		if end < 0 {
			end = len(s)
		}
		if at := strings.LastIndex(s[:end], "@"); at >= 0 {
			b.WriteString(Mask)
			s = s[at:]
		}
	}
}

// Text returns s with every occurrence of each secret replaced by Mask,
// every secret recognised by its shape masked (Secrets) and the userinfo
// of every URL in it masked. Secrets shorter than MinSecret are ignored.
// It is the one scrubber of text bound for an output: errors and
// warnings on stderr, texts a server sent back, manifest values.
func Text(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= MinSecret {
			s = strings.ReplaceAll(s, k, Mask)
		}
	}
	s = Secrets(s)
	if strings.Contains(s, "://") {
		s = byHand(s)
	}
	return s
}

// Clip scrubs s (Text) and then cuts it to at most n bytes, never inside
// a UTF-8 sequence, appending "…" when it cut.
func Clip(s string, n int, secrets ...string) string {
	s = Text(s, secrets...)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
