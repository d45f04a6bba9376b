package sim_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/topology"
)

// A poll busy-waits: alone on its CPU it burns the CPU until the message comes, then takes it;
// sharing a CPU with a computing thread it yields, so the other thread's work is not delayed
// by more than a try per turn.
func TestPoll(t *testing.T) {
	w, err := workload.Parse(`
pipe go
thread sender cpus=0
	sleep 10ms
	send go
end
thread waiter cpus=1
	poll go 100us
	run 1ms
end
`)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1}
	r, err := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Thread("waiter")
	// 10 ms of tries until the message, then the 1 ms run.
	if wt.CPUTime < int64(10*time.Millisecond) || wt.CPUTime > int64(11200*time.Microsecond) {
		t.Errorf("the waiter used %v of CPU, want about 11ms: it spins until the message, then runs", time.Duration(wt.CPUTime))
	}
	if wt.End < int64(11*time.Millisecond) || wt.End > int64(11200*time.Microsecond) {
		t.Errorf("the waiter exited at %v, want about 11ms", time.Duration(wt.End))
	}
	if wt.Wakeups != 0 {
		t.Errorf("the waiter woke up %d times: a poll never sleeps", wt.Wakeups)
	}

	// On one CPU with a thread computing 20 ms, the poller yields to it at every try.
	w, err = workload.Parse(`
pipe go
thread worker cpus=0
	run 20ms
	send go
end
thread waiter cpus=0
	poll go 100us
end
`)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Topology = topology.Uniform(1, 1, 1, 1, 1)
	r, err = sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	wk, _ := r.Thread("worker")
	if wk.End > int64(30*time.Millisecond) {
		t.Errorf("the worker ended at %v beside a polling thread, want near 20ms: the poll yields", time.Duration(wk.End))
	}
}

// A poll's text form reads back as it was written.
func TestPollText(t *testing.T) {
	src := "pipe done\nthread a\n\tpoll done 50us 3\nend\n"
	w, err := workload.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	op := w.Threads[0].Ops[0]
	if op.Kind != workload.Poll || op.Name != "done" || op.N != 3 || op.Time != workload.Fixed(workload.Duration(50*time.Microsecond)) {
		t.Errorf("parsed %+v", op)
	}
	if _, err := workload.Parse("pipe done\nthread a\n\tpoll done\nend\n"); err == nil {
		t.Error("a poll without the time of a try parsed")
	}
	if _, err := workload.Parse("pipe done\nthread a\n\tpoll done 0us\nend\n"); err == nil {
		t.Error("a poll whose tries take no time parsed")
	}
	if _, err := workload.Parse("thread a\n\tpoll nope 1us\nend\n"); err == nil {
		t.Error("a poll of an unknown pipe parsed")
	}
	back, err := workload.Parse(workload.Format(w))
	if err != nil || back.Threads[0].Ops[0].Kind != workload.Poll || back.Threads[0].Ops[0].N != 3 {
		t.Errorf("format and parse again: %v, %+v", err, back)
	}
}
