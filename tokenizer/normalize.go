package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// normFunc rewrites a segment of text before pre-tokenization.
type normFunc func(string) string

// chain composes normalizers in order; nil entries are skipped.
func chain(fs []normFunc) normFunc {
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	}
	return func(s string) string {
		for _, f := range fs {
			s = f(s)
		}
		return s
	}
}

// normalizerSetup is what the normalizer tells the rest of the loader.
type normalizerSetup struct {
	fns []normFunc
	nfc bool // an NFC normalizer is present (round trips compare after NFC)
	// mark: spaces become "▁" (Replace); prepend: "▁" is prepended. They
	// tell a file without a decoder how to decode.
	mark, prepend bool
}

// normalizer builds the normalizer of a tokenizer.json node.
func (s *normalizerSetup) add(c *hfComponent) error {
	if c == nil {
		return nil
	}
	switch c.Type {
	case "Sequence":
		if len(c.Normalizers) > maxComponents {
			return fmt.Errorf("normalizer Sequence of %d entries exceeds the limit %d", len(c.Normalizers), maxComponents)
		}
		for _, n := range c.Normalizers {
			if err := s.add(n); err != nil {
				return err
			}
		}
	case "NFC":
		s.nfc = true
		s.fns = append(s.fns, norm.NFC.String)
	case "NFD":
		s.fns = append(s.fns, norm.NFD.String)
	case "NFKC":
		s.fns = append(s.fns, norm.NFKC.String)
	case "NFKD":
		s.fns = append(s.fns, norm.NFKD.String)
	case "Lowercase":
		s.fns = append(s.fns, lowercase)
	case "StripAccents":
		s.fns = append(s.fns, func(x string) string { return dropRunes(x, unicode.M) })
	case "Strip":
		left, right := boolOr(c.StripLeft, true), boolOr(c.StripRight, true)
		s.fns = append(s.fns, func(x string) string { return strip(x, left, right) })
	case "Prepend":
		p := c.Prepend
		s.prepend = s.prepend || p == spaceMark
		s.fns = append(s.fns, func(x string) string {
			if x == "" {
				return x
			}
			return p + x
		})
	case "Replace":
		s.mark = s.mark || c.Content == spaceMark
		f, err := replacer(c)
		if err != nil {
			return err
		}
		s.fns = append(s.fns, f)
	case "BertNormalizer":
		s.fns = append(s.fns, bertNormalizer(c))
	case "Precompiled":
		f, err := precompiled(c.PrecompiledCharsmap)
		if err != nil {
			return err
		}
		if f != nil {
			s.fns = append(s.fns, f)
		}
	default:
		return fmt.Errorf("unsupported normalizer %q", c.Type)
	}
	return nil
}

// maxComponents bounds the entries of one Sequence node.
const maxComponents = 64

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// lowercase is Unicode full lowercasing (final sigma, İ → i̇), as the
// reference's str::to_lowercase.
func lowercase(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return cases.Lower(language.Und).String(s)
		}
	}
	return strings.ToLower(s)
}

func dropRunes(s string, t *unicode.RangeTable) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(t, r) {
			return -1
		}
		return r
	}, s)
}

func strip(s string, left, right bool) string {
	if left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

// replacer is the Replace normalizer: a literal or an Oniguruma regex.
func replacer(c *hfComponent) (normFunc, error) {
	content := c.Content
	switch {
	case c.Pattern.String != nil:
		old := *c.Pattern.String
		if old == "" {
			return nil, fmt.Errorf("normalizer Replace with an empty pattern")
		}
		return func(s string) string { return strings.ReplaceAll(s, old, content) }, nil
	case c.Pattern.Regex != nil:
		m, err := newPatternMatcher(*c.Pattern.Regex)
		if err != nil {
			return nil, err
		}
		return func(s string) string {
			var b strings.Builder
			last := 0
			for _, sp := range m.find(s, nil) {
				b.WriteString(s[last:sp.start])
				b.WriteString(content)
				last = sp.end
			}
			if last == 0 {
				return s
			}
			b.WriteString(s[last:])
			return b.String()
		}, nil
	}
	return nil, fmt.Errorf("normalizer Replace without a pattern")
}

// bertNormalizer: drop control characters, map whitespace to " ", pad CJK
// ideographs with spaces, strip accents (NFD, drop Mn; by default when
// lowercasing), lowercase.
func bertNormalizer(c *hfComponent) normFunc {
	clean, chinese := boolOr(c.CleanText, true), boolOr(c.HandleChineseChars, true)
	lower := boolOr(c.Lowercase, true)
	accents := boolOr(c.StripAccentsOpt, lower)
	return func(s string) string {
		var b strings.Builder
		for _, r := range s {
			switch {
			case clean && (r == 0 || r == 0xFFFD || isControl(r)):
			case clean && unicode.IsSpace(r):
				b.WriteByte(' ')
			case chinese && isCJK(r):
				b.WriteByte(' ')
				b.WriteRune(r)
				b.WriteByte(' ')
			default:
				b.WriteRune(r)
			}
		}
		s = b.String()
		if accents {
			s = dropRunes(norm.NFD.String(s), unicode.Mn)
		}
		if lower {
			s = lowercase(s)
		}
		return s
	}
}

// isControl is BERT's control test: categories Cc, Cf, Co, Cs except tab,
// newline and carriage return.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// rawList decodes a JSON array into its raw elements, or nil.
func rawList(raw json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}
