// Package sim is a deterministic discrete-event machine that runs any scheduling policy on any
// topology and workload.
//
// This file set is being built; so far it declares the [Policy] interface that the policy
// packages satisfy.
package sim
