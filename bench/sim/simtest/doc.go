// Package simtest holds the conformance test of the simulator's Policy contract: [CheckPolicy]
// runs a policy through the machine's shared scenarios (hogs sharing CPUs, pinned threads, pipes,
// fork and join, periodic threads, attribute changes, control groups) on several topologies,
// checking after every event the conservation of threads (sim.Machine.Check, with the policy's own
// count of queued threads when it is a sim.Queuer), the starvation checker, what each scenario
// must achieve, and that two runs with the same seed leave the same trace.
//
// It is a separate package because it imports testing, which package sim, a library, must not.
// A policy package calls it from an external test:
//
//	func TestConformance(t *testing.T) {
//		simtest.CheckPolicy(t, func() sim.Policy { return ule.New(ule.DefaultParams()) }, simtest.Options{})
//	}
//
// # Kernel names
//
// The scenarios are the behaviours the kernels' own self-tests exercise: CPU hogs (a while(1)
// loop), taskset(1)-pinned threads, pipe ping-pong (hackbench), fork/wait trees (make -j), and
// periodic wake-ups (cyclictest, schbench).
package simtest
