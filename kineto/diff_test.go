package kineto

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/servecmp/servecmp/event"
)

// refRead reads a plain-JSON trace with encoding/json instead of the
// scanner (same key semantics: exact keys, in order, later duplicates
// replacing earlier ones) and then maps events with the same code. It is
// the reference the scanner is checked against.
func refRead(data []byte) (*event.Capture, error) {
	p := newParser(context.Background(), "x", event.All)
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errors.New("top level is not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		k := topKey([]byte(key))
		switch k {
		case keyOther:
		case keyEvents:
			if raw[0] != '[' {
				return nil, errors.New("traceEvents is not an array")
			}
			p.sawEvents = true
			var elems []json.RawMessage
			if err := json.Unmarshal(raw, &elems); err != nil {
				return nil, err
			}
			for _, e := range elems {
				p.ev.reset()
				fit, err := refElement(e, &p.ev)
				if err != nil {
					return nil, err
				}
				if fit {
					p.add(&p.ev)
				} else {
					p.badType++
				}
			}
		default:
			p.topRaw(k, raw)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the object: %v", err)
	}
	if !p.sawEvents {
		return nil, errors.New("no traceEvents")
	}
	return p.capture()
}

// fields walks the keys of a JSON object in order.
func fields(raw []byte, f func(key string, v json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if err := f(tok.(string), v); err != nil {
			return err
		}
	}
	return nil
}

// refString applies a string value to dst: strings set it, null leaves it,
// anything else does not fit.
func refString(v json.RawMessage, dst *[]byte) bool {
	switch v[0] {
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			panic(err)
		}
		*dst = append((*dst)[:0], s...)
		return true
	case 'n':
		return true
	}
	return false
}

func refElement(raw json.RawMessage, ev *rawEvent) (bool, error) {
	if string(raw) == "null" {
		return true, nil
	}
	if raw[0] != '{' {
		return false, nil
	}
	fit := true
	err := fields(raw, func(key string, v json.RawMessage) error {
		switch key {
		case "ph":
			fit = refString(v, &ev.ph) && fit
		case "cat":
			fit = refString(v, &ev.cat) && fit
		case "name":
			fit = refString(v, &ev.name) && fit
		case "pid":
			ev.pid.UnmarshalJSON(v)
		case "tid":
			ev.tid.UnmarshalJSON(v)
		case "ts":
			ev.ts = append(ev.ts[:0], numText(v)...)
		case "dur":
			ev.dur = append(ev.dur[:0], numText(v)...)
		case "args":
			switch v[0] {
			case 'n':
			case '{':
				ev.args = rawArgs{}
				return fields(v, func(key string, v json.RawMessage) error {
					switch key {
					case "device":
						ev.args.device.UnmarshalJSON(v)
					case "stream":
						ev.args.stream.UnmarshalJSON(v)
					case "correlation":
						ev.args.correlation.UnmarshalJSON(v)
					case "grid":
						ev.args.grid.UnmarshalJSON(v)
					case "block":
						ev.args.block.UnmarshalJSON(v)
					case "name":
						fit = refString(v, &ev.args.name) && fit
					}
					return nil
				})
			default:
				fit = false
			}
		}
		return nil
	})
	return fit, err
}

// flat is a capture with names spelled out, for comparison.
type flat struct {
	Warnings []string
	Ranks    []flatRank
}

type flatRank struct {
	Hdr      [9]string
	Span     [2]int64
	Work     []string
	Launches []string
	Ranges   []string
}

func flatten(c *event.Capture) flat {
	f := flat{Warnings: c.Warnings}
	for _, r := range c.Ranks {
		fr := flatRank{
			Hdr:  [9]string{r.Source, string(r.Format), fmt.Sprint(r.PID), fmt.Sprint(r.Device), r.Label, r.LabelFrom, r.GPU, r.ToolVersion, r.Process},
			Span: [2]int64{r.SpanStart, r.SpanEnd},
		}
		for _, w := range r.Work {
			fr.Work = append(fr.Work, fmt.Sprintf("%d %d %d %q %+v %d %s", w.Start, w.End, w.Correlation, r.Names.Name(w.Name), r.Shapes.Shape(w.Shape), w.Stream, w.Kind))
		}
		for _, l := range r.Launches {
			fr.Launches = append(fr.Launches, fmt.Sprintf("%d %d %d %d %q", l.Start, l.End, l.Correlation, l.TID, r.Names.Name(l.Name)))
		}
		for _, x := range r.Ranges {
			fr.Ranges = append(fr.Ranges, fmt.Sprintf("%d %d %d %q %d", x.Start, x.End, x.TID, r.Names.Name(x.Text), x.Kind))
		}
		f.Ranks = append(f.Ranks, fr)
	}
	return f
}

// sameAsReference reads data both ways and reports a difference.
func sameAsReference(t *testing.T, data []byte) {
	t.Helper()
	got, err1 := Read(context.Background(), bytes.NewReader(data), "x", event.All)
	want, err2 := refRead(data)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("scanner error %v, reference error %v", err1, err2)
	}
	if err1 != nil {
		return
	}
	w := flatten(want)
	if g := flatten(got); !reflect.DeepEqual(g, w) {
		t.Fatalf("scanner and reference differ:\n got %+v\nwant %+v", g, w)
	}
	// the same through reads of a few bytes, so that tokens straddle the
	// scanner's buffer refills everywhere
	var r io.Reader = iotest.OneByteReader(bytes.NewReader(data))
	if len(data) > 1<<16 {
		r = &chunkReader{data: data, n: 61}
	}
	small, err := Read(context.Background(), r, "x", event.All)
	if err != nil {
		t.Fatalf("read in small pieces: %v", err)
	}
	if g := flatten(small); !reflect.DeepEqual(g, w) {
		t.Fatalf("read in small pieces differs from the reference:\n got %+v\nwant %+v", g, w)
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

func TestScannerMatchesReference(t *testing.T) {
	inputs := []string{
		synthetic,
		`{"traceEvents": [null, 1, "x", [], {}, {"ph": null, "name": null, "args": null}]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "a\u00e9\"b\\", "pid": 1, "tid": 2, "ts": 1.5, "dur": 2,
		  "args": {"device": 0, "grid": [1, 2], "block": [3], "x": {"y": [true, false, null, -1.5e-3, "s"]}}}]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0}, "args": null}]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0}, "args": {"stream": 4}}]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "name": 3, "ts": 1, "dur": 1, "args": {"device": 0}}], "x": 1}`,
		"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"\xff\xfe\", \"ts\": 1, \"dur\": 1, \"args\": {\"device\": 0}}]}",
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0}}]} x`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0}}], "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k2", "ts": 2, "dur": 1, "args": {"device": 0}}]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0}}], "deviceProperties": [{"id": 0, "name": "G"}], "deviceProperties": {"id": 0}}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 01, "dur": 1, "args": {"device": 0}}]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "bad \x escape", "ts": 1, "dur": 1, "args": {"device": 0}}]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0}}, ]}`,
		`{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0}} trailing]}`,
		`{"traceEvents": [tru]}`,
	}
	for i, in := range inputs {
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameAsReference(t, []byte(in)) })
	}
	// and the real traces kept in the repository, decompressed (the larger
	// shared ones are checked against the map-based reference in
	// TestRealTracesMatchReference; through encoding/json here they would
	// take most of the package's test time)
	for _, tr := range realTraces(t) {
		if !strings.HasPrefix(tr.path, filepath.Join(repoRoot(t), "testdata")) {
			continue
		}
		t.Run(tr.name, func(t *testing.T) { sameAsReference(t, gunzipFile(t, tr.path)) })
	}
}

// FuzzScanner checks the scanner against encoding/json on any input.
func FuzzScanner(f *testing.F) {
	f.Add([]byte(synthetic))
	f.Add([]byte(`{"traceEvents": [null, 1, {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"device": 0, "grid": [1]}}]}`))
	f.Add([]byte(`{"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name": "c\u0041", "ts": "2", "args": {"correlation": "7"}}], "schemaVersion": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsReference(t, data)
	})
}
