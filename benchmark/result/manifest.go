package result

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/servecmp/servecmp/internal/infile"
	"github.com/servecmp/servecmp/internal/redact"
)

// ManifestKeys lists the keys that manifest arguments and files set:
// the JSON keys of Manifest's fields (Extra aside), sorted.
func ManifestKeys() []string {
	keys := []string{"seed", "gpu_count"}
	var m Manifest
	for k := range m.stringFields() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// stringFields maps the JSON key of each string field to the field.
func (m *Manifest) stringFields() map[string]*string {
	return map[string]*string{
		"engine": &m.Engine, "engine_version": &m.EngineVersion, "engine_detected_from": &m.EngineDetectedFrom,
		"model": &m.Model, "checkpoint_revision": &m.CheckpointRevision, "tokenizer": &m.Tokenizer,
		"servecmp_version": &m.ServecmpVersion, "servecmp_commit": &m.ServecmpCommit, "client_host": &m.ClientHost,
		"url": &m.URL, "endpoint": &m.Endpoint, "load_policy": &m.LoadPolicy, "gpu_type": &m.GPUType, "driver_version": &m.DriverVersion,
		"topology": &m.Topology, "memory_limit": &m.MemoryLimit, "compute_precision": &m.ComputePrecision,
		"weight_precision": &m.WeightPrecision, "kv_precision": &m.KVPrecision, "quantization": &m.Quantization,
		"attention_backend": &m.AttentionBackend, "graph_mode": &m.GraphMode, "cache_policy": &m.CachePolicy,
	}
}

// Set sets the manifest field whose JSON key is key; an unknown key goes
// into Extra. Numeric fields (seed, gpu_count) must parse. Text values
// are scrubbed of secrets (redact.Text) as they enter.
func (m *Manifest) Set(key, value string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return fmt.Errorf("empty manifest key")
	}
	switch key {
	case "seed", "gpu_count":
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return fmt.Errorf("manifest %s: %q is not an integer", key, value)
		}
		if key == "seed" {
			m.Seed = n
		} else {
			m.GPUCount = int(n)
		}
		return nil
	}
	value = redact.Text(value)
	if f, ok := m.stringFields()[key]; ok {
		*f = value
		return nil
	}
	if m.Extra == nil {
		m.Extra = map[string]string{}
	}
	m.Extra[key] = value
	return nil
}

// ParseManifestArg splits one key=value manifest argument.
func ParseManifestArg(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", "", fmt.Errorf("manifest field %q: want key=value", s)
	}
	return strings.TrimSpace(k), v, nil
}

// KV is one manifest key and value, in file order.
type KV struct{ Key, Value string }

// ReadManifestFile reads a manifest file: a JSON object (string, number or
// boolean values) or key=value lines (blank lines and # comments
// skipped). Errors name the file and line.
func ReadManifestFile(path string) ([]KV, error) {
	b, err := infile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseManifestFile(path, b)
}

// parseManifestFile parses the manifest file content b read from path.
func parseManifestFile(path string, b []byte) ([]KV, error) {
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

// Scrub masks the secrets every text field and extra value may carry (a
// launch command line's key, a key a server echoed in its model name):
// redact.Text with the given secrets (the API key) and the shapes it
// knows. Set scrubs what it sets; a manifest read from a file is scrubbed
// by whoever reads it for an output (compare).
func (m *Manifest) Scrub(secrets ...string) {
	for _, f := range m.stringFields() {
		*f = redact.Text(*f, secrets...)
	}
	for k, v := range m.Extra {
		m.Extra[k] = redact.Text(v, secrets...)
	}
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
