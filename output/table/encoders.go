package table

import (
	"fmt"
	"slices"
	"strings"
)

// Encoders maps each output format name to its encoder.
var Encoders = map[string]Encoder{
	"text":     Text,
	"markdown": Markdown,
	"csv":      CSV,
	"json":     JSON,
}

// aliases are other spellings of format names.
var aliases = map[string]string{"md": "markdown"}

// Lookup returns the canonical name and the encoder of a format name
// ("md" is "markdown"). Its error names the format and the known ones.
func Lookup(name string) (string, Encoder, error) {
	if a, ok := aliases[name]; ok {
		name = a
	}
	enc, ok := Encoders[name]
	if !ok {
		return "", nil, fmt.Errorf("unknown format %q (want one of %s)", name, strings.Join(Formats(), ", "))
	}
	return name, enc, nil
}

// Formats returns the canonical format names in a fixed order: text
// first, then the others sorted.
func Formats() []string {
	var out []string
	for n := range Encoders {
		if n != "text" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return append([]string{"text"}, out...)
}
