package workload_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

func ExampleParse() {
	w, err := workload.Parse(`
pipe jobs cap=4
thread producer
	repeat 100
		run exp(100us)
		send jobs
	end
end
thread consumer count=2
	loop
		recv jobs
		run 150us
	end
end`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range w.Threads {
		fmt.Println(t.Name, t.Instances(), len(t.Ops))
	}
	// Output:
	// producer 1 1
	// consumer 2 1
}

func ExampleParse_error() {
	_, err := workload.Parse("thread x\n\tslep 1ms\nend\n")
	fmt.Println(err)
	// Output: line 2, column 2: unknown behaviour "slep"
}

func ExampleFormat() {
	w := &workload.Workload{Threads: []workload.Thread{{
		Name: "hog", Count: 2, Nice: 19,
		Ops: []workload.Op{workload.RunOp(workload.Unbounded())},
	}, {
		Name: "ticker",
		Ops: []workload.Op{workload.EveryOp(workload.Duration(10e6), 0,
			workload.RunOp(workload.Between(100e3, 300e3)))},
	}}}
	fmt.Print(workload.Format(w))
	// Output:
	// thread hog count=2 nice=19
	// 	run forever
	// end
	//
	// thread ticker
	// 	every 10ms
	// 		run uniform(100us,300us)
	// 	end
	// end
}

func ExampleParseJSON() {
	w, err := workload.ParseJSON([]byte(`{"threads": [
		{"name": "hog", "count": 2, "ops": [{"op": "run", "time": "forever"}]}
	]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(w)
	fmt.Println(string(out))
	// Output: {"threads":[{"name":"hog","count":2,"ops":[{"op":"run","time":"forever"}]}]}
}

func ExampleDist_Sample() {
	src := rand.NewPCG(1, 2)
	d := workload.Exponential(workload.Duration(1e6)) // mean 1ms
	for range 3 {
		fmt.Println(d.Sample(src))
	}
	// Output:
	// 262.179us
	// 483.8us
	// 242.8us
}

func ExampleParseDist() {
	d, err := workload.ParseDist("uniform(1ms, 3ms)")
	fmt.Println(d, d.Min(), err)
	// Output: uniform(1ms,3ms) 1ms <nil>
}

// A workload can be built in Go with the op constructors instead of parsed; Validate checks it
// as Parse would, locating problems by their path in the value.
func ExampleWorkload_Validate() {
	ms := workload.Duration(time.Millisecond)
	w := workload.Workload{
		Pipes: []workload.Pipe{{Name: "jobs", Cap: 4}},
		Threads: []workload.Thread{
			{Name: "producer", Ops: []workload.Op{
				workload.RepeatOp(10, workload.RunOp(workload.Exponential(ms)), workload.SendOp("jobs", 1)),
			}},
			{Name: "worker", Template: true, Ops: []workload.Op{
				workload.RecvOp("jobs", 5),
				workload.RunOp(workload.Between(ms, 2*ms)),
			}},
			{Name: "boss", Ops: []workload.Op{workload.ForkOp("worker", 2), {Kind: workload.Join}}},
			{Name: "ticker", Ops: []workload.Op{workload.EveryOp(10*ms, 5, workload.RunOp(workload.Fixed(ms/10)))}},
			{Name: "napper", Ops: []workload.Op{workload.LoopOp(workload.SleepOp(workload.Fixed(5*ms)), workload.RunOp(workload.Fixed(ms)))}},
		},
	}
	if err := w.Validate(); err != nil {
		panic(err)
	}
	fmt.Print(workload.Format(&w))

	w.Threads[4].Ops = []workload.Op{workload.LoopOp(workload.SendOp("jobs", 1))}
	fmt.Println(w.Validate())
	// Output:
	// pipe jobs cap=4
	//
	// thread producer
	// 	repeat 10
	// 		run exp(1ms)
	// 		send jobs 1
	// 	end
	// end
	//
	// template worker
	// 	recv jobs 5
	// 	run uniform(1ms,2ms)
	// end
	//
	// thread boss
	// 	fork worker 2
	// 	join
	// end
	//
	// thread ticker
	// 	every 10ms 5
	// 		run 100us
	// 	end
	// end
	//
	// thread napper
	// 	loop
	// 		sleep 5ms
	// 		run 1ms
	// 	end
	// end
	// threads[4].ops[0]: loop body takes no time (it needs a run or sleep of a positive duration, or an every)
}

// A PhaseMode fixes when an every's periods start: absolute multiples of the period shifted by a
// phase, staggered over the instances of a count=N thread, or counted from the thread's arrival.
func ExamplePhaseMode() {
	w, _ := workload.Parse(`
thread probe count=4
	every 10ms phase=stagger
		run 100us
	end
end
thread late
	sleep 3ms
	every 10ms 5 phase=arrival
		run 100us
	end
end`)
	for _, t := range w.Threads {
		op := t.Ops[len(t.Ops)-1]
		fmt.Println(t.Name, op.PhaseMode, op.N)
	}
	fmt.Print(workload.Format(w))
	// Output:
	// probe stagger 0
	// late arrival 5
	// thread probe count=4
	// 	every 10ms phase=stagger
	// 		run 100us
	// 	end
	// end
	//
	// thread late
	// 	sleep 3ms
	// 	every 10ms 5 phase=arrival
	// 		run 100us
	// 	end
	// end
}

// rtprio=freebsd:N writes a priority as FreeBSD's rtprio(2) takes it (0..31, 0 most important);
// rtprio=N is Linux's sched_priority (1..99). The policy maps the scale or refuses it.
func ExampleThread_Attr() {
	w, _ := workload.Parse(`
thread audio class=fifo rtprio=freebsd:0
	run 1ms
end
thread jack class=fifo rtprio=95
	run 1ms
end`)
	for _, t := range w.Threads {
		a := t.Attr(0)
		fmt.Println(t.Name, a.Class, a.RTScale, a.RTPrio)
	}
	// Output:
	// audio fifo freebsd 0
	// jack fifo linux 95
}
