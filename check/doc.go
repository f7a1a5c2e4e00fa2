// Package check is servecmp's pre-flight correctness check runner: every
// request of a small deterministic workload goes to two engines, one at a
// time, at temperature 0 with a fixed seed, and the two answers are
// compared (checkreport.Compare) for success, input and output token
// counts, and the exact output token sequence. The report it returns is
// check/checkreport's model.
package check
