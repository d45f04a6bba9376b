package scenario_test

import (
	"fmt"
	"os"

	"github.com/schedkit/schedkit/bench/scenario"
)

// The stored calibration of seed 004's cells: how many 100-byte messages a pipe and an
// AF_UNIX stream socket hold before a writer blocks, as measured with the real system calls.
func ExampleSeed004() {
	c := scenario.Seed004()
	fmt.Printf("%d-byte messages: a pipe holds %d, a socket %d\n", c.MessageBytes, c.PipeCapacity, c.SocketCapacity)
	// Output:
	// 100-byte messages: a pipe holds 640, a socket 278
}

// Seed 004's tbench throughput table, Hmean requests/s per client count with the change
// against the baseline kernel (positive is better), from a small run of seed004-tbench.
func ExampleTbenchThroughput() {
	s, err := scenario.Lookup("seed004-tbench")
	if err != nil {
		panic(err)
	}
	rep, err := scenario.Run(s, scenario.Options{Small: true, Reps: 2, Set: scenario.Values{"seconds": 0.002}})
	if err != nil {
		panic(err)
	}
	c, err := scenario.TbenchThroughput(rep, 0)
	if err != nil {
		panic(err)
	}
	if err := c.Write(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// v6.5                   v6.5
	//                         baseline                patched
	// Hmean 1      14245.61 (   0.00%)    14245.61 (   0.00%)
	// Hmean 2      27729.73 (   0.00%)    27729.73 (   0.00%)
	// Hmean 4      55495.50 (   0.00%)    55495.50 (   0.00%)
	// Hmean 8     124106.43 (   0.00%)   124106.43 (   0.00%)
	// Hmean 16    220715.74 (   0.00%)   220715.74 (   0.00%)
	// Hmean 32    226429.36 (   0.00%)   226429.36 (   0.00%)
	// Hmean 64    243129.36 (   0.00%)   243129.36 (   0.00%)
	// Hmean 128   267983.35 (   0.00%)   267983.35 (   0.00%)
	// Hmean 256   263383.60 (   0.00%)   263383.60 (   0.00%)
	// Hmean 384   265284.24 (   0.00%)   265284.24 (   0.00%)
}
