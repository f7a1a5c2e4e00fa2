// Package tracegen writes synthetic request traces in the public formats
// `servecmp workload trace` reads, for tests and benchmarks: Mooncake JSON
// Lines (timestamp in ms, input_length, output_length, hash_ids) and the
// Azure LLM inference CSV (TIMESTAMP, ContextTokens, GeneratedTokens).
//
// The traces have the shape of a multi-turn chat service: Poisson
// arrivals; each request either opens a conversation (a shared system
// prompt, then a document of its own) or continues a recent one, whose
// prompt is the previous turn's prompt, its answer and a new user message,
// so it shares every whole block of the previous prompt. The output is a
// pure function of the Spec. Lengths are tokens, times milliseconds.
package tracegen

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Spec describes a synthetic trace.
type Spec struct {
	Requests  int
	DurationS float64 // the arrivals span about this long
	Seed      uint64
	BlockSize int // tokens per hash id (512 in Mooncake's traces)
	// NewShare is the chance that a request opens a conversation.
	NewShare float64
	// SystemPrompts shared by the conversations, each 1 to 4 blocks long.
	SystemPrompts int
	// DocMean is the mean document length of a new conversation; UserMean
	// the mean new user text per turn; OutMean the mean output length.
	DocMean, UserMean, OutMean float64
	// MaxInput caps a prompt (a conversation that reaches it starts over).
	MaxInput int
}

// Conversation is the conversation-trace shape the benchmark uses: n
// requests over an hour averaging about 12,000 input and 340 output
// tokens.
func Conversation(n int, seed uint64) Spec {
	return Spec{Requests: n, DurationS: 3600, Seed: seed, BlockSize: 512, NewShare: 0.45, SystemPrompts: 16,
		DocMean: 9000, UserMean: 600, OutMean: 340, MaxInput: 131072}
}

// Request is one generated request.
type Request struct {
	TimestampMs int64
	Input       int
	Output      int
	HashIDs     []int64
}

type session struct {
	ids   []int64 // the last prompt's hash ids
	input int     // its length
	out   int     // its answer's length
}

// Generate calls emit for every request, in arrival order.
func Generate(s Spec, emit func(Request) error) error {
	rng := rand.New(rand.NewPCG(s.Seed, 0x7472616365))
	bs := s.BlockSize
	next := int64(0)
	newID := func() int64 { next++; return next - 1 }
	system := make([][]int64, s.SystemPrompts)
	for i := range system {
		for range 1 + rng.IntN(4) {
			system[i] = append(system[i], newID())
		}
	}
	var live []*session
	at := 0.0
	rate := float64(s.Requests) / s.DurationS
	for range s.Requests {
		at += rng.ExpFloat64() / rate
		var q Request
		q.TimestampMs = int64(math.Round(at * 1000))
		q.Output = max(1, int(s.OutMean*rng.ExpFloat64()))
		var ss *session
		if len(live) == 0 || rng.Float64() < s.NewShare {
			sys := system[rng.IntN(len(system))]
			doc := max(1, int(s.DocMean*rng.ExpFloat64()))
			ss = &session{input: min(len(sys)*bs+doc, s.MaxInput)}
			ss.ids = extend(append([]int64(nil), sys...), ss.input, bs, newID)
			live = append(live, ss)
			if len(live) > 256 {
				live = live[1:]
			}
		} else {
			ss = live[rng.IntN(len(live))]
			grown := ss.input + ss.out + max(1, int(s.UserMean*rng.ExpFloat64()))
			if grown > s.MaxInput {
				grown = max(1, int(s.DocMean*rng.ExpFloat64()))
				ss.ids, ss.input = extend(nil, min(grown, s.MaxInput), bs, newID), min(grown, s.MaxInput)
			} else {
				keep := ss.input / bs // the whole blocks of the previous prompt
				ss.ids, ss.input = extend(ss.ids[:keep:keep], grown, bs, newID), grown
			}
		}
		ss.out = q.Output
		q.Input, q.HashIDs = ss.input, ss.ids
		if err := emit(q); err != nil {
			return err
		}
	}
	return nil
}

// extend gives the hash ids of a prompt of n tokens that starts with ids
// (whole blocks), new blocks after them.
func extend(ids []int64, n, bs int, newID func() int64) []int64 {
	for len(ids) < (n+bs-1)/bs {
		ids = append(ids, newID())
	}
	return ids
}

// WriteMooncake writes the trace as Mooncake JSON Lines.
func WriteMooncake(w io.Writer, s Spec) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	err := Generate(s, func(q Request) error {
		b = append(b[:0], `{"timestamp": `...)
		b = strconv.AppendInt(b, q.TimestampMs, 10)
		b = append(b, `, "input_length": `...)
		b = strconv.AppendInt(b, int64(q.Input), 10)
		b = append(b, `, "output_length": `...)
		b = strconv.AppendInt(b, int64(q.Output), 10)
		b = append(b, `, "hash_ids": [`...)
		for i, id := range q.HashIDs {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, id, 10)
		}
		b = append(b, "]}\n"...)
		_, err := bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// AzureEpoch is the wall-clock time of an Azure trace's timestamp 0.
var AzureEpoch = time.Date(2023, 11, 16, 18, 0, 0, 0, time.UTC)

// WriteAzure writes the trace as an Azure CSV (its hash ids dropped),
// timestamps with seven fractional digits as the published files have.
func WriteAzure(w io.Writer, s Spec) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintln(bw, "TIMESTAMP,ContextTokens,GeneratedTokens")
	err := Generate(s, func(q Request) error {
		t := AzureEpoch.Add(time.Duration(q.TimestampMs) * time.Millisecond)
		_, err := fmt.Fprintf(bw, "%s.%07d,%d,%d\n", t.Format("2006-01-02 15:04:05"), t.Nanosecond()/100, q.Input, q.Output)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}
