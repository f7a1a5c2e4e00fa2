package result

import "time"

// Sharded runs: one workload's load sent by N processes (benchmark
// --shard i/N), on one host or many, each starting its measured phase at
// one agreed instant (--start-at), then merged into one result
// (servecmp merge) whose figures come from the union of their records.

// ShardSchema names the result file of one shard. It is the result
// format (Schema) with the Shard block; a different name, so that a
// shard, which measured only its part of the load, is never read as a
// whole run: merge the shards first. merge writes a Schema result with
// the Shards block.
const ShardSchema = "servecmp.shard/1"

// Shard is one shard's place in its sharded run and how its start went.
type Shard struct {
	Index int `json:"index"` // i, counted from 0
	Count int `json:"count"` // N
	// Group identifies the sharded run; every shard of it carries the
	// same group (--shard-group, or derived from the start instant, the
	// workload's hash and N).
	Group string `json:"group"`
	// StartAt is the agreed start of the measured phase (--start-at);
	// T0 is when this shard's measured phase actually began (its t=0),
	// both on this shard's wall clock (UTC), and StartSkewS is T0 −
	// StartAt in seconds: how late the shard started by its own clock.
	StartAt    time.Time `json:"start_at"`
	T0         time.Time `json:"t0"`
	StartSkewS float64   `json:"start_skew_s"`
	// Requests is the number of the workload's requests in this shard
	// (the whole workload is Result.Workload.Count).
	Requests int `json:"requests"`
	// ServerClock is this host's clock against the server's, measured
	// from the Date header of the server's answers while the shard waited
	// for StartAt; nil when the server sent no usable Date.
	ServerClock *ClockOffset `json:"server_clock,omitempty"`
}

// ClockOffset bounds the server's clock minus this host's, in seconds:
// the offset lies in [LoS, HiS]. The server's Date header has one-second
// resolution and some servers refresh it only once a second, so the
// interval is about two seconds wide: it catches a host whose clock is
// off by seconds (no time synchronisation), not milliseconds.
type ClockOffset struct {
	LoS    float64 `json:"lo_s"`
	HiS    float64 `json:"hi_s"`
	Probes int     `json:"probes"`
}

// ShardRef is the shard that sent a record, on every record of a shard's
// records file and of a merged one.
type ShardRef struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Shards describes a merged result: the shards it was made of and how
// well their starts agreed.
type Shards struct {
	Count   int       `json:"count"`
	Group   string    `json:"group"`
	StartAt time.Time `json:"start_at"`
	// StartSpreadS is the latest shard's t=0 minus the earliest's
	// (seconds, each on its own host's clock); MaxSkewS is the bound it
	// was held to (merge --max-skew).
	StartSpreadS float64 `json:"start_spread_s"`
	MaxSkewS     float64 `json:"max_skew_s"`
	// ClockDisagreementS is the least disagreement between two shards'
	// clocks that their server-clock offsets prove (0 when they are
	// consistent with agreeing clocks); nil when no two shards measured
	// their offset.
	ClockDisagreementS *float64    `json:"clock_disagreement_s"`
	Parts              []ShardPart `json:"parts"`
}

// ShardPart is one shard of a merged result.
type ShardPart struct {
	Index       int          `json:"index"`
	RunID       string       `json:"run_id"`
	ClientHost  string       `json:"client_host"`
	T0          time.Time    `json:"t0"`
	StartSkewS  float64      `json:"start_skew_s"`
	Requests    int          `json:"requests"`
	Incomplete  bool         `json:"incomplete,omitempty"`
	ServerClock *ClockOffset `json:"server_clock,omitempty"`
}

// IsShard reports whether the result is one shard of a sharded run (not
// yet merged).
func (r *Result) IsShard() bool { return r.Schema == ShardSchema || r.Shard != nil }
