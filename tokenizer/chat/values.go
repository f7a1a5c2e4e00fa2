package chat

import (
	"sort"
	"time"
)

// dict is a Python dict: keys keep their insertion order.
type dict struct {
	keys []string
	orig []any // the keys as written (a template may use integer keys)
	m    map[string]any
}

func newDictOf() *dict { return &dict{m: map[string]any{}} }

// newDict copies m into a dict: "role" and "content" first (the order
// of a chat message), the other keys sorted.
func newDict(m map[string]any) *dict {
	d := newDictOf()
	for _, k := range []string{"role", "content"} {
		if v, ok := m[k]; ok {
			d.set(k, fromGo(v))
		}
	}
	rest := make([]string, 0, len(m))
	for k := range m {
		if k != "role" && k != "content" {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		d.set(k, fromGo(m[k]))
	}
	return d
}

// fromGo converts decoded JSON (maps, slices) into template values.
func fromGo(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return newDict(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fromGo(x)
		}
		return out
	case float64:
		if v == float64(int(v)) && v < 1<<53 && v > -(1<<53) {
			return int(v)
		}
		return v
	}
	return v
}

func (d *dict) get(k string) (any, bool) {
	v, ok := d.m[k]
	return v, ok
}

func (d *dict) set(k string, v any) { d.setKey(k, v) }

// setKey stores v under key, looked up by its string form.
func (d *dict) setKey(key any, v any) {
	k := str(key)
	if _, ok := d.m[k]; !ok {
		d.keys = append(d.keys, k)
		d.orig = append(d.orig, key)
	}
	d.m[k] = v
}

// FixedNow is the time the template references were rendered with
// (2024-07-26 09:30:00), for strftime_now in tests.
var FixedNow = time.Date(2024, 7, 26, 9, 30, 0, 0, time.UTC)
