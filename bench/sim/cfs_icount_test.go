package sim_test

import "testing"

// BenchmarkCFSICount steps every cfs preset through the three periodic task sets (4, 16 and 64
// CPUs, as BenchmarkPeriodic runs them), and through BenchmarkICount's hogs and mixed machines,
// with icountSteps, for exact instruction counts under callgrind, as BenchmarkICount does for
// the benchmarked preset of each policy:
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  --toggle-collect='*icountSteps*' ./sim.test -test.run '^$' \
//	  -test.bench 'CFSICount/w=periodic-4x20/p=cfs-v7.1$' -test.benchtime 20000x -test.cpu 1
//
// and the same with 40000x give the instructions of 20000 steps by difference; ev/step turns
// them into instructions per event.
func BenchmarkCFSICount(b *testing.B) { icountMachines(b, cfsPresets()) }
