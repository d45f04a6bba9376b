// Package simtest holds the conformance test of the Policy contract (sched.Policy, as the
// simulator drives it): [CheckPolicy] runs a policy through the machine's shared scenarios (hogs
// sharing CPUs, pinned threads, pipes, fork and join, periodic threads, attribute changes,
// control groups) on several topologies, checking after every event the conservation of threads
// (sim.Machine.Check, with the policy's own count of queued threads when it is a sched.Queuer),
// the starvation checker, what each scenario must achieve, and that two runs with the same seed
// leave the same trace. [CheckFamily] runs it on every preset of a policy family
// (sched.Family).
//
// It is a separate package because it imports testing, which package sim, a library, must not.
// The policy packages have no conformance test of their own: this package's TestFamilies runs
// CheckFamily on every family bench/presets lists, so a policy package listed there is tested
// (go test ./bench/sim/simtest -run 'Families/ule'). A policy outside this module calls it from
// its own tests:
//
//	func TestConformance(t *testing.T) {
//		simtest.CheckFamily(t, mypolicy.Family(), simtest.Options{})
//	}
//
// # Kernel names
//
// The scenarios are the behaviours the kernels' own self-tests exercise: CPU hogs (a while(1)
// loop), taskset(1)-pinned threads, pipe ping-pong (hackbench), fork/wait trees (make -j), and
// periodic wake-ups (cyclictest, schbench).
package simtest
