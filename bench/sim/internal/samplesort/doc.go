// Package samplesort sorts a simulated machine's exact latency samples, whose values all fit
// 32 bits, faster than a comparison sort: a least-significant-digit radix sort, one byte per
// pass, that skips a pass when every sample has the same byte there (latencies below 2^24 ns
// cost three passes, below 2^16 ns two).
//
// It is the fast form behind bench/sim's readable one, slices.Sort of the samples a result
// snapshots: both give the same sequence (integers sorted ascending have one order), which
// this package's tests check against slices.Sort on random and adversarial inputs. Below
// [Cutoff] samples it calls slices.Sort itself, which is faster there.
package samplesort
