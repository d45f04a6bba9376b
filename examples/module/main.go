// Command schedkit-user is a program in a module of its own that depends on schedkit, the way
// a project outside this repository uses it before schedkit is tagged: its go.mod requires
// github.com/schedkit/schedkit and replaces it with a checkout (here the repository itself,
// ../..). The repository's CI builds and tests it, so the instructions in the README keep
// working.
//
// It uses the two packages meant to be stable first: runq as a priority queue of jobs, and
// topology to place them on a machine's last-level caches.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/topology"
)

// A job is an element of the run queue: the link lives inside it, so queueing allocates nothing.
type job struct {
	runq.Link[job]
	name string
	pri  runq.Index // 0 is the most urgent
}

func newJob(name string, pri runq.Index) *job {
	j := &job{name: name, pri: pri}
	j.Init(j)
	return j
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "schedkit-user:", err)
		os.Exit(1)
	}
}

// run queues jobs by priority and deals them, most urgent first, to the CPUs of a machine of
// two last-level caches, round robin over the caches.
func run(w io.Writer) error {
	t, err := topology.Parse("llc:2 cpu:2")
	if err != nil {
		return err
	}
	var q runq.Runq[job]
	for _, j := range []*job{newJob("backup", 200), newJob("build", 120), newJob("irq", 4), newJob("render", 120)} {
		q.Add(j.pri, &j.Link)
	}
	llcs := t.Groups(topology.LLC)
	for i := 0; !q.Empty(); i++ {
		j, _ := q.Choose()
		q.Remove(&j.Link)
		cpus := llcs[i%len(llcs)].CPUs()
		first, _ := cpus.First()
		fmt.Fprintf(w, "%-6s priority %3d -> %v (llc %v)\n", j.name, j.pri, first, &cpus)
	}
	return nil
}
