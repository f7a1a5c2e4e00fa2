// Package shards merges the shards of a sharded benchmark run (benchmark
// --shard i/N --start-at T, ShardSchema results and their records) into
// one result, as if one process had sent the whole workload.
//
// The merged figures are computed afresh from the union of the shards'
// records, never from the shards' summaries: percentiles are exact over
// every request (not averages of percentiles), throughputs divide the
// union's counts by the union's window (from the earliest shard's t=0 to
// the last request's end), concurrency is the union's. Times: each
// shard's records count from that shard's t=0; the merged records count
// from the merged t=0, the earlier of the agreed start T and the earliest
// shard's t=0, so a shard's sent_s and scheduled_s move by its t=0 minus
// the merged one (seconds, from the shards' wall-clock t=0).
//
// Invariants of a merge: the shards are exactly 0..N−1 of one group, each
// once, of one workload (sha256, count) under one load and one manifest
// (the client host aside), with their requests adding up to the
// workload's count; every shard's records file holds exactly the requests
// its summary counts, no request sent by two shards; the shards' t=0 lie
// within the skew bound of each other, and no two shards' server-clock
// offsets prove their clocks apart by more than it. Anything else is
// refused, naming the file.
//
// The load of the merged result is the shards' total: N × the
// per-shard concurrency, rate, max-concurrency and warmup.
package shards
