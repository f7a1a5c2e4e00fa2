package tracegen

import (
	"bytes"
	"testing"

	"github.com/servecmp/servecmp/internal/testkit/golden"
)

// Sample is the small trace testdata/traces holds (docs/traces.md replays
// it): two minutes of a chat service with Mooncake's 512-token blocks.
var Sample = Spec{Requests: 120, DurationS: 120, Seed: 1, BlockSize: 512, NewShare: 0.35, SystemPrompts: 4,
	DocMean: 1500, UserMean: 200, OutMean: 40, MaxInput: 16384}

// TestSampleFiles keeps testdata/traces equal to the generator's output
// (UPDATE_GOLDEN=1 rewrites them).
func TestSampleFiles(t *testing.T) {
	var mc, az bytes.Buffer
	if err := WriteMooncake(&mc, Sample); err != nil {
		t.Fatal(err)
	}
	if err := WriteAzure(&az, Sample); err != nil {
		t.Fatal(err)
	}
	golden.Match(t, "../../../testdata/traces/conversation.jsonl", mc.String())
	golden.Match(t, "../../../testdata/traces/azure-conv.csv", az.String())
}

// TestGenerate: the same spec gives the same requests, in arrival
// order, each with ⌈input/block⌉ hash ids, a continued conversation
// sharing the whole blocks of its previous prompt.
func TestGenerate(t *testing.T) {
	var a, b bytes.Buffer
	WriteMooncake(&a, Conversation(500, 3))
	WriteMooncake(&b, Conversation(500, 3))
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two runs differ")
	}
	prev := int64(-1)
	n, in := 0, 0
	err := Generate(Conversation(2000, 3), func(q Request) error {
		if q.TimestampMs < prev || len(q.HashIDs) != (q.Input+511)/512 || q.Output < 1 || q.Input < 1 {
			t.Fatalf("request %+v after %d", q, prev)
		}
		prev, n, in = q.TimestampMs, n+1, in+q.Input
		return nil
	})
	if err != nil || n != 2000 {
		t.Fatal(err, n)
	}
	if mean := in / n; mean < 9000 || mean > 15000 {
		t.Errorf("mean input %d: not the conversation shape", mean)
	}
}
