package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/servecmp/servecmp/internal/infile"
)

// Mooncake trace keys: every line must have all four.
var mooncakeKeys = []string{"timestamp", "input_length", "output_length", "hash_ids"}

// mooncakeSource reads a Mooncake JSON Lines trace: one object per line,
// blank lines skipped.
type mooncakeSource struct {
	lr      *lineReader
	unknown map[string]bool
}

func (m *mooncakeSource) ignored() []string { return sortedKeys(m.unknown) }

func (m *mooncakeSource) where(n int) string { return fmt.Sprintf("%s:%d", m.lr.name, n) }

func (m *mooncakeSource) next() (traceLine, error) {
	for {
		b, err := m.lr.next()
		if err != nil {
			return traceLine{}, err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		tl, err := parseMooncakeLine(b, m.unknown)
		if err != nil {
			return traceLine{}, fmt.Errorf("%s:%d: %v", m.lr.name, m.lr.n, err)
		}
		tl.line = m.lr.n
		return tl, nil
	}
}

// parseMooncakeLine reads one JSON object; unknown keys are added to
// unknown.
func parseMooncakeLine(b []byte, unknown map[string]bool) (traceLine, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		if err == nil {
			err = errors.New("null")
		}
		return traceLine{}, fmt.Errorf("want a JSON object: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	for k := range obj {
		if !slices.Contains(mooncakeKeys, k) {
			unknown[k] = true
		}
	}
	vals := make([]any, len(mooncakeKeys))
	for i, k := range mooncakeKeys {
		raw, ok := obj[k]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return traceLine{}, fmt.Errorf("no %q (a Mooncake line has %s)", k, strings.Join(mooncakeKeys, ", "))
		}
		if k == "hash_ids" {
			var ids []json.Number
			if err := json.Unmarshal(raw, &ids); err != nil {
				return traceLine{}, fmt.Errorf(`"hash_ids" must be a list of whole numbers`)
			}
			list := make([]any, len(ids))
			for j, v := range ids {
				list[j] = v
			}
			vals[i] = list
			continue
		}
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return traceLine{}, fmt.Errorf("%q must be a number, got %s", k, clip(raw))
		}
		vals[i] = n
	}
	return mooncakeValues(vals)
}

// mooncakeValues checks the four values of a line or row (json.Number,
// int64, int32 or float64; the ids a list of them) and bounds each.
func mooncakeValues(vals []any) (traceLine, error) {
	var tl traceLine
	ts, ok := toFloat(vals[0])
	if !ok || !(ts >= 0 && ts <= MaxTraceTimestampMs) {
		return tl, fmt.Errorf(`"timestamp" must be milliseconds in [0, %g], got %v`, float64(MaxTraceTimestampMs), show(vals[0]))
	}
	tl.tsNs = int64(math.Round(ts * 1e6))
	var err error
	if tl.in, err = length(vals[1], "input_length"); err != nil {
		return tl, err
	}
	if tl.out, err = length(vals[2], "output_length"); err != nil {
		return tl, err
	}
	list, ok := unwrapList(vals[3])
	if !ok {
		return tl, errors.New(`"hash_ids" must be a list of whole numbers`)
	}
	if len(list) > MaxTraceBlocks {
		return tl, fmt.Errorf(`"hash_ids" has more than %d ids`, MaxTraceBlocks)
	}
	tl.ids, tl.hasIDs = make([]int64, len(list)), true
	for j, v := range list {
		id, ok := toInt64(v)
		if !ok {
			return tl, fmt.Errorf(`"hash_ids"[%d] must be a whole number in the 64-bit range, got %v`, j, show(v))
		}
		tl.ids[j] = id
	}
	return tl, nil
}

// length reads a token count in [1, MaxMaxTokens].
func length(v any, key string) (int, error) {
	n, ok := toInt64(v)
	if !ok || n < 1 || n > MaxMaxTokens {
		return 0, fmt.Errorf("%q must be a whole number of tokens in [1, %d], got %v", key, MaxMaxTokens, show(v))
	}
	return int(n), nil
}

// toInt64 reads a whole number: an integer, or a float with no fraction
// inside the exact range of float64.
func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n, true
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, false
		}
		return toInt64(f)
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int:
		return int64(x), true
	case float32:
		return toInt64(float64(x))
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// toFloat reads a finite number.
func toFloat(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(x), 64); err != nil {
			return 0, false
		}
	case int64:
		f = float64(x)
	case int32:
		f = float64(x)
	case float32:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// show prints a value for an error message, clipped.
func show(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

func clip(b []byte) string { return show(string(b)) }

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// parquetSource reads a Mooncake trace stored as Parquet, one row at a
// time.
type parquetSource struct {
	name    string
	closer  io.Closer
	rd      *parquet.Reader
	row     int
	rows    int64
	unknown []string
}

func newParquetSource(path string) (*parquetSource, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a readable Parquet file: %v", path, err)
	}
	var have []string
	for _, fl := range pf.Schema().Fields() {
		have = append(have, fl.Name())
	}
	p := &parquetSource{name: path, closer: f, rows: pf.NumRows()}
	for _, k := range mooncakeKeys {
		if !slices.Contains(have, k) {
			f.Close()
			return nil, fmt.Errorf("%s: no column %q (columns: %s)", path, k, strings.Join(have, ", "))
		}
	}
	for _, h := range have {
		if !slices.Contains(mooncakeKeys, h) {
			p.unknown = append(p.unknown, h)
		}
	}
	slices.Sort(p.unknown)
	if p.rows > MaxTraceLines {
		f.Close()
		return nil, fmt.Errorf("%s: %d rows, more than %d", path, p.rows, MaxTraceLines)
	}
	p.rd = parquet.NewReader(pf)
	return p, nil
}

func (p *parquetSource) ignored() []string { return p.unknown }

func (p *parquetSource) where(n int) string { return fmt.Sprintf("%s: row %d", p.name, n) }

func (p *parquetSource) next() (tl traceLine, err error) {
	if int64(p.row) >= p.rows {
		p.rd.Close()
		p.closer.Close()
		return tl, io.EOF
	}
	p.row++
	defer func() {
		if r := recover(); r != nil { // the library panics on rows it cannot map
			err = fmt.Errorf("%s: row %d: %v", p.name, p.row, r)
		}
	}()
	r := record{}
	if err := p.rd.Read(&r); err != nil {
		return tl, fmt.Errorf("%s: row %d: %v", p.name, p.row, err)
	}
	vals := make([]any, len(mooncakeKeys))
	for i, k := range mooncakeKeys {
		if vals[i] = r[k]; vals[i] == nil {
			return tl, fmt.Errorf("%s: row %d: no %q", p.name, p.row, k)
		}
	}
	if tl, err = mooncakeValues(vals); err != nil {
		return tl, fmt.Errorf("%s: row %d: %v", p.name, p.row, err)
	}
	tl.line = p.row
	return tl, nil
}
