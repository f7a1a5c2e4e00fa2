package result

import (
	"strings"
	"testing"
)

// FuzzManifestFile feeds arbitrary bytes to the manifest-file parser
// (JSON object or key=value lines): it never panics, errors are one
// line, and every key it accepts is non-empty.
func FuzzManifestFile(f *testing.F) {
	f.Add([]byte(`{"model": "m", "gpu_count": 2, "graph_mode": true}`))
	f.Add([]byte("# comment\nmodel = m\n\ngpu_type=H100\n"))
	f.Add([]byte(`{"model": ["x"]}`))
	f.Add([]byte("=novalue\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		kvs, err := parseManifestFile("m.txt", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for _, kv := range kvs {
			if kv.Key == "" && !strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
				t.Fatalf("empty key from %q", data)
			}
		}
	})
}
