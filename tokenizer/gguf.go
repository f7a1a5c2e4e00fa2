package tokenizer

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// GGUF metadata value types (GGUF v2/v3).
const (
	ggufUint8   = 0
	ggufInt8    = 1
	ggufUint16  = 2
	ggufInt16   = 3
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
	ggufUint64  = 10
	ggufInt64   = 11
	ggufFloat64 = 12
)

// Bounds on what a GGUF header may ask for, so that a hostile or damaged
// file cannot make the reader allocate without limit.
const (
	maxGGUFKeys      = 1 << 20
	maxGGUFString    = 1 << 24 // one key or string value: 16 MiB
	maxGGUFArray     = 1 << 24 // elements in one array
	maxGGUFArrayNest = 4
)

// ggufMeta holds the tokenizer.ggml.* metadata of a GGUF file. Arrays the
// tokenizer does not need are skipped, never stored.
type ggufMeta struct {
	model, pre string
	tokens     []string
	scores     []float32
	types      []int32
	merges     []string
	ints       map[string]int64 // integer and bool values by key
}

// ggufReader reads little-endian GGUF values and knows how many bytes the
// file has left, so every length can be checked before it is used.
type ggufReader struct {
	r    *bufio.Reader
	left int64 // bytes not yet read; lengths beyond it are refused
	buf  [8]byte
}

var errTruncated = errors.New("file ends inside the GGUF header (truncated)")

func (g *ggufReader) read(n int) ([]byte, error) {
	if int64(n) > g.left {
		return nil, errTruncated
	}
	if _, err := io.ReadFull(g.r, g.buf[:n]); err != nil {
		return nil, errTruncated
	}
	g.left -= int64(n)
	return g.buf[:n], nil
}

func (g *ggufReader) u32() (uint32, error) {
	b, err := g.read(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (g *ggufReader) u64() (uint64, error) {
	b, err := g.read(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// str reads a length-prefixed string, refusing lengths over maxGGUFString
// or over the bytes the file still has.
func (g *ggufReader) str() (string, error) {
	n, err := g.u64()
	if err != nil {
		return "", err
	}
	if n > maxGGUFString {
		return "", fmt.Errorf("string length %d exceeds the limit %d", n, maxGGUFString)
	}
	if int64(n) > g.left {
		return "", errTruncated
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(g.r, b); err != nil {
		return "", errTruncated
	}
	g.left -= int64(n)
	return string(b), nil
}

// skip discards n bytes.
func (g *ggufReader) skip(n int64) error {
	if n > g.left {
		return errTruncated
	}
	if _, err := g.r.Discard(int(n)); err != nil {
		return errTruncated
	}
	g.left -= n
	return nil
}

// scalarSize is the encoded size of a fixed-size GGUF type, 0 for others.
func scalarSize(t uint32) int64 {
	switch t {
	case ggufUint8, ggufInt8, ggufBool:
		return 1
	case ggufUint16, ggufInt16:
		return 2
	case ggufUint32, ggufInt32, ggufFloat32:
		return 4
	case ggufUint64, ggufInt64, ggufFloat64:
		return 8
	}
	return 0
}

// scalar reads one fixed-size value as int64 (floats by their bits).
func (g *ggufReader) scalar(t uint32) (int64, error) {
	b, err := g.read(int(scalarSize(t)))
	if err != nil {
		return 0, err
	}
	switch t {
	case ggufUint8, ggufBool:
		return int64(b[0]), nil
	case ggufInt8:
		return int64(int8(b[0])), nil
	case ggufUint16:
		return int64(binary.LittleEndian.Uint16(b)), nil
	case ggufInt16:
		return int64(int16(binary.LittleEndian.Uint16(b))), nil
	case ggufUint32, ggufFloat32:
		return int64(binary.LittleEndian.Uint32(b)), nil
	case ggufInt32:
		return int64(int32(binary.LittleEndian.Uint32(b))), nil
	default:
		return int64(binary.LittleEndian.Uint64(b)), nil
	}
}

// arrayHeader reads an array's element type and count and checks that the
// count is plausible for the bytes left in the file.
func (g *ggufReader) arrayHeader() (uint32, int, error) {
	t, err := g.u32()
	if err != nil {
		return 0, 0, err
	}
	n, err := g.u64()
	if err != nil {
		return 0, 0, err
	}
	if n > maxGGUFArray {
		return 0, 0, fmt.Errorf("array length %d exceeds the limit %d", n, maxGGUFArray)
	}
	min := scalarSize(t)
	switch t {
	case ggufString:
		min = 8
	case ggufArray:
		min = 12
	}
	if min == 0 {
		return 0, 0, fmt.Errorf("unknown GGUF value type %d", t)
	}
	if int64(n)*min > g.left {
		return 0, 0, errTruncated
	}
	return t, int(n), nil
}

// skipValue discards one value of type t.
func (g *ggufReader) skipValue(t uint32, depth int) error {
	if sz := scalarSize(t); sz > 0 {
		return g.skip(sz)
	}
	switch t {
	case ggufString:
		n, err := g.u64()
		if err != nil {
			return err
		}
		if n > uint64(g.left) {
			return errTruncated
		}
		return g.skip(int64(n))
	case ggufArray:
		if depth >= maxGGUFArrayNest {
			return errors.New("arrays nested too deeply")
		}
		et, n, err := g.arrayHeader()
		if err != nil {
			return err
		}
		if sz := scalarSize(et); sz > 0 {
			return g.skip(sz * int64(n))
		}
		for i := 0; i < n; i++ {
			if err := g.skipValue(et, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown GGUF value type %d", t)
}

func (g *ggufReader) strings(key string) ([]string, error) {
	et, n, err := g.arrayHeader()
	if err != nil {
		return nil, err
	}
	if et != ggufString {
		return nil, fmt.Errorf("%s: array of type %d, want strings", key, et)
	}
	out := make([]string, n)
	for i := range out {
		if out[i], err = g.str(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// numbers reads a numeric array; floats are kept as float32 bits.
func (g *ggufReader) numbers(key string, want uint32) ([]uint32, error) {
	et, n, err := g.arrayHeader()
	if err != nil {
		return nil, err
	}
	if et != want {
		return nil, fmt.Errorf("%s: array of type %d, want %d", key, et, want)
	}
	out := make([]uint32, n)
	for i := range out {
		v, err := g.u32()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// readGGUF parses the header and metadata of a GGUF v2/v3 file of the given
// size. Tensor information after the metadata is not read.
func readGGUF(r io.Reader, size int64) (*ggufMeta, error) {
	g := &ggufReader{r: bufio.NewReaderSize(r, 1<<16), left: size}
	magic, err := g.read(4)
	if err != nil || string(magic) != "GGUF" {
		return nil, errors.New("not a GGUF file (no GGUF magic)")
	}
	version, err := g.u32()
	if err != nil {
		return nil, err
	}
	if version != 2 && version != 3 {
		return nil, fmt.Errorf("GGUF version %d not supported (want 2 or 3)", version)
	}
	if _, err := g.u64(); err != nil { // tensor count, unused
		return nil, err
	}
	nkv, err := g.u64()
	if err != nil {
		return nil, err
	}
	if nkv > maxGGUFKeys {
		return nil, fmt.Errorf("metadata key count %d exceeds the limit %d", nkv, maxGGUFKeys)
	}
	m := &ggufMeta{ints: map[string]int64{}}
	for i := uint64(0); i < nkv; i++ {
		if err := g.keyValue(m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// keyValue reads one metadata pair, storing it in m when the tokenizer
// needs it.
func (g *ggufReader) keyValue(m *ggufMeta) error {
	key, err := g.str()
	if err != nil {
		return err
	}
	t, err := g.u32()
	if err != nil {
		return err
	}
	switch {
	case key == "tokenizer.ggml.model" && t == ggufString:
		m.model, err = g.str()
	case key == "tokenizer.ggml.pre" && t == ggufString:
		m.pre, err = g.str()
	case key == "tokenizer.ggml.tokens" && t == ggufArray:
		m.tokens, err = g.strings(key)
	case key == "tokenizer.ggml.merges" && t == ggufArray:
		m.merges, err = g.strings(key)
	case key == "tokenizer.ggml.scores" && t == ggufArray:
		var bits []uint32
		if bits, err = g.numbers(key, ggufFloat32); err == nil {
			m.scores = make([]float32, len(bits))
			for i, b := range bits {
				m.scores[i] = math.Float32frombits(b)
			}
		}
	case key == "tokenizer.ggml.token_type" && t == ggufArray:
		var raw []uint32
		if raw, err = g.numbers(key, ggufInt32); err == nil {
			m.types = make([]int32, len(raw))
			for i, v := range raw {
				m.types[i] = int32(v)
			}
		}
	case scalarSize(t) > 0 && t != ggufFloat32 && t != ggufFloat64:
		var v int64
		if v, err = g.scalar(t); err == nil {
			m.ints[key] = v
		}
	default:
		err = g.skipValue(t, 0)
	}
	if err != nil {
		return fmt.Errorf("key %q: %w", key, err)
	}
	return nil
}
