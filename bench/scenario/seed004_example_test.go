package scenario_test

import (
	"fmt"

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
