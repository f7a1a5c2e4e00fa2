package present

import (
	"fmt"
	"io"
	"time"

	"github.com/servecmp/servecmp/benchmark/result"
)

// writeShards writes the shard line of a shard's result, or the shards
// line of a merged one.
func writeShards(w io.Writer, r *result.Result) {
	if sh := r.Shard; sh != nil {
		fmt.Fprintf(w, "shard\t%d/%d of group %s (%d requests), started %s after %s\n", sh.Index, sh.Count, sh.Group, sh.Requests,
			time.Duration(sh.StartSkewS*1e9).Round(time.Microsecond), sh.StartAt.UTC().Format(time.RFC3339Nano))
	}
	if s := r.Shards; s != nil {
		fmt.Fprintf(w, "shards\t%d merged (group %s), starts spread over %s (bound %s)\n", s.Count, s.Group,
			time.Duration(s.StartSpreadS*1e9).Round(time.Microsecond), time.Duration(s.MaxSkewS*1e9))
	}
}
