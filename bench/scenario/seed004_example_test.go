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
	// Hmean 1      14000.00 (   0.00%)    14000.00 (   0.00%)
	// Hmean 2      30672.00 (   0.00%)    30672.00 (   0.00%)
	// Hmean 4      56722.47 (   0.00%)    56722.47 (   0.00%)
	// Hmean 8     125801.59 (   0.00%)   125801.59 (   0.00%)
	// Hmean 16    215214.87 (   0.00%)   215214.87 (   0.00%)
	// Hmean 32    221337.47 (   0.00%)   221337.47 (   0.00%)
	// Hmean 64    246595.14 (   0.00%)   246595.14 (   0.00%)
	// Hmean 128   275770.96 (   0.00%)   275770.96 (   0.00%)
	// Hmean 256   297475.67 (   0.00%)   297475.67 (   0.00%)
	// Hmean 384   287853.30 (   0.00%)   287853.30 (   0.00%)
}
