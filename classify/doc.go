// Package classify labels every piece of device work of a rank with a
// region (attention, ffn, communication, io, other), the method that
// decided it and the deciding rule, and summarises ranks from those labels.
//
// Units and invariants: times are ns on the capture's clock; labels are
// parallel to rank.Work (same index); name labels are indexed by
// event.Names id; nothing here prints or reads flags.
//
// # Context attribution
//
// Attribute starts from the name label of every piece of device work and
// re-homes the work whose name cannot place it. A name rule's Class decides
// what the name says:
//
//   - no class, or an anchor class (attn-core, comm, act, moe, embed,
//     sample): the name is trusted; the label stays ByName, whatever the
//     context says.
//   - an ambiguous class (gemm, norm, quant, splitk, workspace, gather,
//     copy, elementwise): the name says what the kernel does, not which
//     region it serves. Such work is placed by the methods below, first
//     success wins.
//   - no name rule at all (Rule -1): starts Other/Unmapped; only NVTX and
//     graph context may place it (its position proves nothing).
//
// Methods, in order of trust:
//
//  1. ByNVTX: the host ranges (NVTX, annotations, python frames) open on
//     the launching thread when the launch call started; the innermost
//     range whose text matches an nvtx rule gives the region. Rule is the
//     nvtx rule.
//  2. ByGraph: for work replayed in a CUDA graph traced per node, the
//     ranges open on the capturing thread when the node was created (node
//     event → Original → captured node's event). Rule is the nvtx rule.
//     For such work this is tried before method 1: a node's capture context
//     is its own, while the ranges around a graph launch are shared by all
//     the nodes of the graph.
//  3. ByPosition: the order of the work on its stream between unambiguous
//     anchors (attention core and other attention kernels, communication,
//     activation/MoE, embedding, sampling). A norm feeds the block of the
//     next anchor (attention: input norm; ffn: post-attention norm;
//     sampling or the end: final norm, io); GEMMs before the attention core
//     are attention (QKV), the first after it too (O projection), GEMMs in
//     the ffn block are ffn, the GEMM after the final norm is io (LM head);
//     split-K reductions follow their GEMM; quantisation, workspace memsets
//     and gathers take their consumer's region; copies beside a collective
//     are communication. A stream without anchors (a side stream) places
//     nothing. Rule keeps the name rule.
//
// Hints names the capture options that would place what stays unmapped;
// Explain lists every (name, region, method, rule) group for audit.
// Ambiguous work that no method places:
//
//   - compute classes (gemm, norm, quant, splitk) and names without a rule
//     become Region Other, Method Unmapped, Rule the name rule (-1 none), so
//     that coverage (time not Unmapped) is honest: a GEMM left in "other" is
//     unmapped, never "named";
//   - glue classes (workspace, gather, copy, elementwise) keep their name
//     label (Method ByName, usually Region Other): a copy or fill outside
//     any block is honestly "other".
//
// Cost: O(n log n) in the number of work items at worst, O(n) for work in
// table order (each device table in start order, launches in correlation
// order): a few ascending runs are merged, never sorted (see runs.go); the
// extra state is a few bytes per item (indices), plus 16 bytes per item
// that has a launch call on a thread with host ranges, while the sweep
// runs. Attribute groups the streams for the positional walk on a second
// goroutine while host context places work; Prepare orders the work for
// Summarize without labels, so it can run alongside Attribute.
package classify
