package flagopts

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/servecmp/servecmp/benchmark"
	"github.com/servecmp/servecmp/benchmark/result"
	"github.com/servecmp/servecmp/benchmark/shards"
	"github.com/servecmp/servecmp/benchmark/workload"
	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
)

// Shard holds benchmark's sharding flags as given: --shard i/N,
// --start-at T (RFC 3339) and --shard-group ID.
type Shard struct {
	Shard, StartAt, Group string
}

// Register adds the sharding flags to fs.
func (s *Shard) Register(fs *pflag.FlagSet) {
	fs.StringVar(&s.Shard, "shard", "", "send only shard `i/N` of the workload (0 <= i < N; sessions whole); needs --start-at. --concurrency, --rate, --max-concurrency and --warmup are per shard")
	fs.StringVar(&s.StartAt, "start-at", "", "with --shard: start the measured phase at `TIME` (RFC 3339, e.g. 2026-12-01T10:00:00Z), the same for every shard")
	fs.StringVar(&s.Group, "shard-group", "", "with --shard: the sharded run's `ID`, the same for every shard (default: derived from --start-at, the workload's hash and N)")
}

// Config returns the shard's configuration, nil without --shard. A bad
// value, or --start-at or --shard-group without --shard, is a usage
// error; the start's bounds are checked with the rest of the run
// (benchmark.Config.Validate).
func (s *Shard) Config() (*benchmark.ShardConfig, error) {
	if s.Shard == "" {
		if s.StartAt != "" || s.Group != "" {
			return nil, cli.Usagef("--start-at and --shard-group belong to a sharded run: give --shard i/N")
		}
		return nil, nil
	}
	i, n, err := workload.ParseShard(s.Shard)
	if err != nil {
		return nil, flagErr("shard", "%v", err)
	}
	if s.StartAt == "" {
		return nil, flagErr("start-at", "required with --shard: every shard starts its measured phase at this instant")
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s.StartAt))
	if err != nil {
		return nil, flagErr("start-at", "%q: want an RFC 3339 time such as 2026-12-01T10:00:00Z", s.StartAt)
	}
	return &benchmark.ShardConfig{Index: i, Count: n, Group: strings.TrimSpace(s.Group), StartAt: t}, nil
}

// ShardMerge holds merge's flags for the shards of a sharded benchmark:
// the merged result (Out), its records, the failed share of exit 4 and
// MaxSkew, the bound on the spread of the shards' starts.
type ShardMerge struct {
	Outputs
	MaxSkew time.Duration
}

// shardMergeFlags and summaryMergeFlags are merge's flags of each kind.
var (
	shardMergeFlags   = []string{"out", "records", "max-skew", "max-failed-share"}
	summaryMergeFlags = []string{"save", "csv-dir", "top", "format"}
)

// Register adds the shard flags to fs.
func (m *ShardMerge) Register(fs *pflag.FlagSet) {
	defaultSkew := shards.DefaultMaxSkew
	fs.StringVar(&m.Out, "out", "", `benchmark shards: the merged result JSON file ("-": stdout)`)
	fs.StringVar(&m.Records, "records", "", "benchmark shards: the merged per-request records (JSON Lines), which compare reads")
	fs.DurationVar(&m.MaxSkew, "max-skew", defaultSkew, "benchmark shards: refuse shards whose starts spread, or whose clocks provably disagree, by more than this")
	fs.Float64Var(&m.MaxFailedShare, "max-failed-share", result.DefaultMaxFailedShare, "benchmark shards: exit 4 when a larger share of the requests failed (0 to 1; 1 never)")
	m.Progress = "off"
}

// Merge is merge's one call for the shards of a sharded benchmark: when
// the first input is a benchmark file (by its schema) it checks the
// flags and outputs and returns the merged result (its records written
// to Records); for analysis summaries it returns nil and no error, having
// refused the shards' flags. Either kind refuses the other's flags.
func (m *ShardMerge) Merge(changed func(string) bool, args []string) (*result.Result, error) {
	if _, err := shards.Schema(args[0]); err != nil {
		return nil, err // unreadable (missing, a FIFO, a device): say so, not what kind it is
	}
	bench := shards.IsBenchmarkFile(args[0])
	other, what := shardMergeFlags, "analysis summaries"
	if bench {
		other, what = summaryMergeFlags, "benchmark shards"
	}
	for _, name := range other {
		if changed(name) {
			return nil, cli.Usagef("--%s does not apply to %s (%s is one)", name, what, args[0])
		}
	}
	if !bench {
		return nil, nil
	}
	if err := m.Validate(args...); err != nil {
		return nil, err
	}
	return shards.MergeFiles(args, shards.Options{MaxSkew: m.MaxSkew, Records: m.Records})
}
