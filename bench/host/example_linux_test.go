package host_test

// The examples that run real threads and programs, on Linux only.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim/workload"
)

// A workload played by a real thread: 20 ms of CPU work in 2 ms runs, measured by the kernel.
func ExampleRun() {
	w, _ := workload.Parse("thread x\n\trepeat 10\n\t\trun 2ms\n\tend\nend\n")
	r, err := host.Run(context.Background(), w, host.Options{Limit: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := &r.Threads[0]
	fmt.Println("exited:", r.Exited)
	fmt.Println("CPU time within 5% of 20ms:", x.CPUTime > 19e6 && x.CPUTime < 21e6)
	// Output:
	// exited: 1
	// CPU time within 5% of 20ms: true
}

// What the host cannot do fails before anything starts.
func ExampleMissingError() {
	w, _ := workload.Parse("thread x cpus=1000\n\trun 1ms\nend\n")
	_, err := host.Run(context.Background(), w, host.Options{})
	var m *host.MissingError
	if errors.As(err, &m) {
		msg, _, _ := strings.Cut(m.Missing[0], " mask ") // the mask is this machine's
		fmt.Println(msg)
	}
	// Output:
	// thread x: cpus 1000 outside the process's affinity
}

// A real pipeline's stages measured as they exit.
func ExampleMeasurePipeline() {
	p, err := host.MeasurePipeline(context.Background(), [][]string{{"head", "-c", "100000", "/dev/zero"}, {"cat"}}, 10*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(p.Stages), p.Stages[0].WriteBytes >= 100000, p.Stages[1].ReadBytes >= 100000)
	// Output: 2 true true
}
