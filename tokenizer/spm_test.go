package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
)

// parseSPMModel reads the pieces of a base64 SentencePiece ModelProto:
// field 1 (repeated SentencePiece: 1 piece, 2 score, 3 type).
func parseSPMModel(b64 string) ([]spmPiece, error) {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, err
	}
	var out []spmPiece
	err = protoFields(data, func(field int, wire int, v uint64, b []byte) error {
		if field != 1 || wire != 2 {
			return nil
		}
		p := spmPiece{kind: 1}
		err := protoFields(b, func(f, w int, v uint64, b []byte) error {
			switch {
			case f == 1 && w == 2:
				p.text = string(b)
			case f == 2 && w == 5:
				p.score = math.Float32frombits(uint32(v))
			case f == 3 && w == 0:
				p.kind = int(v)
			}
			return nil
		})
		out = append(out, p)
		return err
	})
	return out, err
}

// protoFields calls fn for each field of a protobuf message.
func protoFields(data []byte, fn func(field, wire int, v uint64, b []byte) error) error {
	for len(data) > 0 {
		key, n := binary.Uvarint(data)
		if n <= 0 {
			return fmt.Errorf("bad protobuf key")
		}
		data = data[n:]
		field, wire := int(key>>3), int(key&7)
		var v uint64
		var b []byte
		switch wire {
		case 0:
			v, n = binary.Uvarint(data)
			if n <= 0 {
				return fmt.Errorf("bad varint")
			}
			data = data[n:]
		case 1:
			if len(data) < 8 {
				return fmt.Errorf("truncated")
			}
			v, data = binary.LittleEndian.Uint64(data), data[8:]
		case 5:
			if len(data) < 4 {
				return fmt.Errorf("truncated")
			}
			v, data = uint64(binary.LittleEndian.Uint32(data)), data[4:]
		case 2:
			l, n := binary.Uvarint(data)
			if n <= 0 || uint64(len(data)-n) < l {
				return fmt.Errorf("bad length")
			}
			b, data = data[n:n+int(l)], data[n+int(l):]
		default:
			return fmt.Errorf("wire type %d", wire)
		}
		if err := fn(field, wire, v, b); err != nil {
			return err
		}
	}
	return nil
}
