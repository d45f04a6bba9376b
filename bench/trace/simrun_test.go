package trace

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// pingPong is the workload of the golden exports: two threads handing a message back and
// forth through pipes beside a CPU hog and a forking parent, on two CPUs.
const pingPong = `pipe ab
pipe ba
template job
	run 300us
end
thread ping
	repeat 20
		run 200us
		send ab
		recv ba
	end
end
thread pong
	repeat 20
		recv ab
		run 150us
		send ba
	end
end
thread hog nice=5
	run 12ms
end
thread parent start=1ms
	fork job 2
	join
	sleep 1ms
end
`

// runTrace runs text under ULE on ncpu CPUs for until, keeping the full trace.
func runTrace(t testing.TB, text string, ncpu int, until time.Duration) *sim.Trace {
	t.Helper()
	return runResult(t, text, ncpu, until).Trace
}

// runResult is runTrace's run, whole.
func runResult(t testing.TB, text string, ncpu int, until time.Duration) *sim.Result {
	t.Helper()
	w, err := workload.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, ncpu, 1), Trace: sim.TraceFull}
	r, err := sim.Run(cfg, ule.New(ule.DefaultParams()), w, until)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the output; run go test -run %s -update and review the diff", path, t.Name())
	}
}

// synthetic builds a trace of about n records: nthreads threads on ncpu CPUs taking turns,
// each run ending in a preemption or a sleep followed by a wake-up from another thread.
func synthetic(n, nthreads, ncpu int) *sim.Trace {
	tr := &sim.Trace{}
	for i := range nthreads {
		tr.Threads = append(tr.Threads, sim.ThreadInfo{Name: "w." + itoa(i), Parent: -1})
	}
	cur := make([]sched.ID, ncpu)
	for c := range cur {
		cur[c] = -1
	}
	state := make([]byte, nthreads) // 0 new, 1 runnable, 2 running, 3 asleep
	var now int64
	next := 0
	for len(tr.Records) < n {
		now += 1000
		c := topology.CPU(len(tr.Records) % ncpu)
		id := sched.ID(next % nthreads)
		next++
		switch state[id] {
		case 0:
			tr.Records = append(tr.Records, sim.Record{Time: now, Kind: sim.KindFork, CPU: c, Thread: id, Other: -1},
				sim.Record{Time: now, Kind: sim.KindWakeup, CPU: c, Thread: id, Other: -1, Arg: uint8(sched.WakeFork)})
			state[id] = 1
		case 3:
			waker := cur[c]
			tr.Records = append(tr.Records, sim.Record{Time: now, Kind: sim.KindWakeup, CPU: c, Thread: id, Other: int32(waker), Arg: uint8(sched.WakeSync)})
			state[id] = 1
		case 1:
			prev := cur[c]
			why := sched.Preempt
			if prev >= 0 && next%3 == 0 {
				why = sched.Sleep
			}
			if prev >= 0 {
				if why == sched.Sleep {
					state[prev] = 3
				} else {
					state[prev] = 1
				}
			}
			tr.Records = append(tr.Records, sim.Record{Time: now, Kind: sim.KindSwitch, CPU: c, Thread: id, Other: int32(prev), Arg: uint8(why)})
			cur[c] = id
			state[id] = 2
		}
	}
	return tr
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	k := len(b)
	for i > 0 {
		k--
		b[k] = byte('0' + i%10)
		i /= 10
	}
	return string(b[k:])
}
