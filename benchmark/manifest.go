package benchmark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// manifestFields maps each Manifest JSON key to its field index.
var manifestFields = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeFor[Manifest]()
	for i := range t.NumField() {
		tag := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if tag != "" && tag != "extra" {
			m[tag] = i
		}
	}
	return m
}()

// ManifestKeys lists the keys that --manifest and --manifest-file set.
func ManifestKeys() []string {
	keys := make([]string, 0, len(manifestFields))
	for k := range manifestFields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Set sets the manifest field whose JSON key is key; an unknown key goes
// into Extra. Numeric fields must parse.
func (m *Manifest) Set(key, value string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return fmt.Errorf("empty manifest key")
	}
	i, ok := manifestFields[key]
	if !ok {
		if m.Extra == nil {
			m.Extra = map[string]string{}
		}
		m.Extra[key] = value
		return nil
	}
	f := reflect.ValueOf(m).Elem().Field(i)
	switch f.Kind() {
	case reflect.String:
		f.SetString(value)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return fmt.Errorf("manifest %s: %q is not an integer", key, value)
		}
		f.SetInt(n)
	}
	return nil
}

// ParseManifestArg splits one --manifest key=value argument.
func ParseManifestArg(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", "", fmt.Errorf("--manifest %q: want key=value", s)
	}
	return strings.TrimSpace(k), v, nil
}

// KV is one manifest key and value, in file order.
type KV struct{ Key, Value string }

// ReadManifestFile reads a manifest file: a JSON object (string, number or
// boolean values) or key=value lines (blank lines and # comments
// skipped). Errors name the file and line.
func ReadManifestFile(path string) ([]KV, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		var m map[string]any
		if err := json.Unmarshal(t, &m); err != nil {
			return nil, fmt.Errorf("%s: not a JSON object of manifest fields: %v", path, err)
		}
		var out []KV
		for k, v := range m {
			switch v := v.(type) {
			case string:
				out = append(out, KV{k, v})
			case float64:
				out = append(out, KV{k, strconv.FormatFloat(v, 'f', -1, 64)})
			case bool:
				out = append(out, KV{k, strconv.FormatBool(v)})
			default:
				return nil, fmt.Errorf("%s: key %q: want a string, number or boolean", path, k)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
		return out, nil
	}
	var out []KV
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s:%d: want key=value, got %q", path, line, s)
		}
		out = append(out, KV{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return out, sc.Err()
}

// SetAll applies kvs in order (later keys win).
func (m *Manifest) SetAll(kvs []KV) error {
	for _, kv := range kvs {
		if err := m.Set(kv.Key, kv.Value); err != nil {
			return err
		}
	}
	return nil
}
