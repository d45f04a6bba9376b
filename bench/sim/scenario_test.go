package sim_test

// Hand-checkable scenarios run with the toy round-robin policy: each expectation follows from
// the workload and the machine's rules, worked out in the comment beside it.

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = int64(time.Millisecond)

func thread(t *testing.T, r *sim.Result, name string) *sim.ThreadStats {
	t.Helper()
	s, ok := r.Thread(name)
	require.True(t, ok, "no thread %q", name)
	return s
}

func TestTwoHogsShareOneCPU(t *testing.T) {
	w := mustParse(t, "thread hog count=2\n\trun forever\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}
	r := runChecked(t, cfg, newRR(1000, 4), w, time.Second)
	// Slices of 4 ticks of 1ms alternate: 125 each in a second.
	for _, name := range []string{"hog.0", "hog.1"} {
		h := thread(t, r, name)
		assert.Equal(t, 500*ms, h.CPUTime, name)
		assert.Equal(t, 500*ms, h.WaitTime, name)
		assert.Equal(t, 0.5, h.Share(), name)
		assert.Zero(t, h.Migrations, name)
	}
	// A switch from idle at 0, then one at each slice end: 4, 8, …, 1000ms (the run includes
	// the events of its last instant).
	assert.Equal(t, int64(251), r.CPUs[0].Switches)
	assert.Equal(t, int64(1000*ms), r.CPUs[0].Busy)
}

func TestPinnedThreadNeverMigrates(t *testing.T) {
	w := mustParse(t, `
thread pinned cpus=1
	run forever
end
thread free count=2
	run forever
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}
	r := runChecked(t, cfg, newRR(1000, 4), w, time.Second)
	p := thread(t, r, "pinned")
	assert.Zero(t, p.Migrations)
	assert.Greater(t, p.CPUTime, int64(0))
	// Three hogs on two CPUs share 2 s of CPU time; the round robin moves the free ones around.
	total := p.CPUTime + thread(t, r, "free.0").CPUTime + thread(t, r, "free.1").CPUTime
	assert.Equal(t, 2000*ms, total)
	assert.Greater(t, thread(t, r, "free.0").Migrations+thread(t, r, "free.1").Migrations, int64(0))
	require.NoError(t, r.Err())
}

func TestSMTSiblingsSlowEachOther(t *testing.T) {
	w := mustParse(t, "thread job count=2\n\trun 10ms\nend\n")
	smt := topology.Uniform(1, 1, 1, 1, 2)
	r := runChecked(t, sim.Config{Topology: smt}, newRR(1000, 100), w, time.Second)
	// Both siblings busy: each runs at 640/1024 = 0.625, so 10ms of work takes 16ms.
	assert.Equal(t, 16*ms, r.Makespan)
	assert.Equal(t, 10*ms, thread(t, r, "job.0").Work)
	// Without the slowdown, 10ms.
	r = runChecked(t, sim.Config{Topology: smt, SMTFactor: 1024}, newRR(1000, 100), w, time.Second)
	assert.Equal(t, 10*ms, r.Makespan)
	// Two separate cores: 10ms.
	r = runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, newRR(1000, 100), w, time.Second)
	assert.Equal(t, 10*ms, r.Makespan)
}

func TestSMTSiblingFinishesFirst(t *testing.T) {
	w := mustParse(t, `
thread short
	run 5ms
end
thread long
	run 10ms
end`)
	r := runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 2)}, newRR(1000, 100), w, time.Second)
	// Together at 0.625 until short has done 5ms of work at 8ms; long has then done 5ms too and
	// finishes its other 5ms alone at full speed: 13ms.
	assert.Equal(t, 8*ms, thread(t, r, "short").End)
	assert.Equal(t, 13*ms, thread(t, r, "long").End)
}

func TestCPUSpeed(t *testing.T) {
	w := mustParse(t, "thread job\n\trun 10ms\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Speed: []int{512}}
	r := runChecked(t, cfg, newRR(1000, 4), w, time.Second)
	assert.Equal(t, 20*ms, r.Makespan)
	assert.Equal(t, 20*ms, r.Threads[0].CPUTime)
	assert.Equal(t, 10*ms, r.Threads[0].Work)
}

func TestPipePingPong(t *testing.T) {
	w := mustParse(t, `
pipe ab
pipe ba
thread a
	repeat 3
		run 1ms
		send ab
		recv ba
	end
end
thread b
	repeat 3
		recv ab
		run 2ms
		send ba
	end
end`)
	for _, n := range []int{1, 2} {
		r := runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, n, 1)}, newRR(1000, 4), w, time.Second)
		// Strictly alternating: 3 × (1ms + 2ms).
		assert.Equal(t, 9*ms, r.Makespan, "cpus=%d", n)
		assert.Equal(t, int64(6), r.Messages)
		assert.Equal(t, int64(2), r.Exited)
		a, b := thread(t, r, "a"), thread(t, r, "b")
		assert.Equal(t, 3*ms, a.CPUTime)
		assert.Equal(t, 6*ms, b.CPUTime)
		// a blocks in each recv. With one CPU, b first runs after a's first send and finds the
		// message, so it blocks only in its second and third recv; with two it blocks in all.
		assert.Equal(t, int64(3), a.Voluntary)
		assert.Equal(t, int64(min(n+1, 3)), b.Voluntary)
		l, ok := b.Latency(100)
		require.True(t, ok)
		assert.Zero(t, l, "nobody competes, so wake-ups run at once")
	}
}

func TestBoundedPipeBlocksSender(t *testing.T) {
	w := mustParse(t, `
pipe p cap=2
thread producer
	repeat 5
		send p
	end
end
thread consumer start=10ms
	repeat 5
		recv p
		run 1ms
	end
end`)
	r := runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, newRR(1000, 4), w, time.Second)
	p := thread(t, r, "producer")
	// Two messages fit; the third send blocks until the consumer starts at 10ms and takes one;
	// each later send waits for the next recv, 1ms apart: the fifth goes in at 12ms.
	assert.Equal(t, 12*ms, p.End)
	assert.Equal(t, int64(3), p.Voluntary)
	assert.Equal(t, 15*ms, r.Makespan)
}

// TestPipeRoom checks workload.Pipe.Room: a receive wakes the blocked senders only once it
// leaves that much room, and then as many as there is room for, where each receive wakes one
// without it.
func TestPipeRoom(t *testing.T) {
	text := func(room string) string {
		return `
pipe p cap=2` + room + `
thread a
	repeat 3
		send p
	end
end
thread b
	repeat 3
		send p
	end
end
thread consumer start=10ms
	repeat 6
		recv p
		run 1ms
	end
end`
	}
	for _, c := range []struct {
		room             string
		aEnd, bEnd       int64
		aBlocks, bBlocks int64
	}{
		// At 0 a fills the pipe and blocks on its third message, b on its first: a, then b, in
		// the queue. Each receive (10, 11, … 15 ms) wakes one: a at 10 ms sends its last; b at
		// 11 and 12 ms sends one and blocks again, and its last at 13 ms.
		{"", 10 * ms, 13 * ms, 1, 3},
		// room=2: the receive at 10 ms leaves room for one and wakes nobody; the one at 11 ms
		// leaves room for two and wakes a and b: a sends its last, b one and blocks; the
		// receive at 12 ms wakes nobody, the one at 13 ms wakes b, which sends its last two.
		{" room=2", 11 * ms, 13 * ms, 1, 2},
	} {
		r := runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, newRR(1000, 4), mustParse(t, text(c.room)), time.Second)
		a, b := thread(t, r, "a"), thread(t, r, "b")
		assert.Equal(t, c.aEnd, a.End, "room%q: a's end", c.room)
		assert.Equal(t, c.bEnd, b.End, "room%q: b's end", c.room)
		assert.Equal(t, c.aBlocks, a.Voluntary, "room%q: a's blocks", c.room)
		assert.Equal(t, c.bBlocks, b.Voluntary, "room%q: b's blocks", c.room)
		assert.Equal(t, 16*ms, r.Makespan, "room%q: six receives from 10 ms, 1 ms apart", c.room)
	}
}

func TestForkJoin(t *testing.T) {
	w := mustParse(t, `
template job
	run 10ms
end
thread make
	fork job 4
	join
	run 1ms
end`)
	r := runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, newRR(1000, 4), w, time.Second)
	// 40ms of jobs on 2 CPUs without idling: the last exits at 20ms, make runs 1ms after.
	assert.Equal(t, 21*ms, r.Makespan)
	assert.Equal(t, int64(5), r.Exited)
	require.Len(t, r.Threads, 5)
	for i, name := range []string{"make", "job.0", "job.1", "job.2", "job.3"} {
		assert.Equal(t, name, r.Threads[i].Name)
	}
	assert.Equal(t, r.Threads[0].ID, r.Threads[3].Parent)
	exits, _ := r.Throughput()
	assert.InDelta(t, 5/0.021, exits, 1e-9)
}

func TestEveryMeasuresWakeLatency(t *testing.T) {
	w := mustParse(t, `
thread ticker
	every 10ms 5
		run 1ms
	end
end`)
	r := runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4), w, time.Second)
	tk := thread(t, r, "ticker")
	// Runs at 0, 10, 20, 30 and 40ms; four wake-ups, all immediate, and the first period's
	// wait for its first run (none) counts as a latency too.
	assert.Equal(t, 41*ms, tk.End)
	assert.Equal(t, int64(4), tk.Wakeups)
	lat, exact := tk.Latencies()
	assert.True(t, exact)
	assert.Equal(t, []int64{0, 0, 0, 0, 0}, lat)
	assert.Equal(t, 36*ms, tk.Sleep)
	req, _ := tk.Request.Exact()
	assert.Equal(t, []int64{1 * ms, 1 * ms, 1 * ms, 1 * ms, 1 * ms}, req)

	// Beside a hog on one CPU, the round robin lets the ticker in only at a slice end.
	w = mustParse(t, `
thread hog
	run forever
end
thread ticker start=1ms
	every 10ms 5
		run 1ms
	end
end`)
	r = runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4), w, time.Second)
	tk = thread(t, r, "ticker")
	// The periods are at 10, 20, 30, 40 and 50ms of absolute time, not counted from the 1ms
	// start. The hog runs 0-4ms; the ticker, created at 1ms, runs at 4, finds its first period
	// ahead and sleeps. The hog's slices then end at 8, 12 (woken at 10: runs 12-13, 2ms late),
	// 17, 21 (woken at 20: 1ms), 26, 30 (woken at 30, before the tick: 0), 35, 39, 43 (woken at
	// 40: 3ms), 48, 52 (woken at 50: 2ms).
	lat, _ = tk.Latencies()
	assert.Equal(t, []int64{0, 1 * ms, 2 * ms, 2 * ms, 3 * ms}, lat)
	assert.Equal(t, 53*ms, tk.End)
	p50, _ := tk.Latency(50)
	assert.Equal(t, 2*ms, p50)
	p99, _ := tk.Latency(99)
	assert.Equal(t, 3*ms, p99)
	// Requests: from each wake-up to the block after the 1ms run.
	req, _ = tk.Request.Exact()
	assert.Equal(t, []int64{1 * ms, 2 * ms, 3 * ms, 3 * ms, 4 * ms}, req)
	// The run-queue wait of each dispatch: the 3ms after creation, then the wake-up latencies.
	waits, _ := tk.RunqWait.Exact()
	assert.Equal(t, []int64{0, 1 * ms, 2 * ms, 2 * ms, 3 * ms, 3 * ms}, waits)
}

func TestSleepAndYield(t *testing.T) {
	w := mustParse(t, `
thread sleeper
	run 1ms
	sleep 3ms
	run 1ms
end
thread yielder
	repeat 3
		run 1ms
		yield
	end
end`)
	r := runChecked(t, sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 100), w, time.Second)
	s, y := thread(t, r, "sleeper"), thread(t, r, "yielder")
	// sleeper 0-1, yielder 1-2 and yields, but the sleeper is asleep, so the yielder goes on,
	// 2-3, 3-4; the sleeper wakes at 4 as the third yield comes, runs 4-5 and exits; the
	// yielder, its loop done, exits at 5.
	assert.Equal(t, 3*ms, s.Sleep)
	assert.Equal(t, 5*ms, s.End)
	assert.Equal(t, 5*ms, y.End)
	assert.Equal(t, int64(1), y.Involuntary, "only the yield at 4ms let another thread in")
}

func TestCosts(t *testing.T) {
	one := topology.Uniform(1, 1, 1, 1, 1)
	hogs := mustParse(t, "thread hog count=2\n\trun 8ms\nend\n")
	// Switch cost: every change of thread stalls the CPU 0.1ms. hog.0 runs 0.1-4 (3.9ms of
	// work), hog.1 4.1-8, hog.0 8.1-12, hog.1 12.1-16, hog.0 16.1-16.3 and hog.1 16.4-16.6.
	cfg := sim.Config{Topology: one, Costs: sim.Costs{Switch: sim.Fixed(100 * time.Microsecond)}}
	r := runChecked(t, cfg, newRR(1000, 4), hogs, time.Second)
	assert.Equal(t, 16*ms+600*int64(time.Microsecond), r.Makespan)
	assert.Equal(t, 600*int64(time.Microsecond), r.CPUs[0].Switch)
	assert.Equal(t, int64(6), r.CPUs[0].Switches-1, "six switches between threads, then one to idle")

	// Tick cost: a 10ms run loses 10us at each of the ticks that land in it.
	job := mustParse(t, "thread job\n\trun 10ms\nend\n")
	cfg = sim.Config{Topology: one, Costs: sim.Costs{Tick: sim.Fixed(10 * time.Microsecond)}}
	r = runChecked(t, cfg, newRR(1000, 4), job, time.Second)
	// Ticks at 1..10ms each stall it 10us: done at 10.1ms, before the next tick.
	assert.Equal(t, 10*ms+100*int64(time.Microsecond), r.Makespan)
	assert.Equal(t, int64(100*time.Microsecond), r.CPUs[0].Interrupt)

	// IPI latency: a wake-up for an idle remote CPU arrives after the IPI.
	w := mustParse(t, `
pipe p
thread a cpus=0
	run 1ms
	send p
	run 5ms
end
thread b cpus=1
	recv p
	run 1ms
end`)
	cfg = sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Costs: sim.Costs{IPI: sim.Fixed(50 * time.Microsecond)}}
	r = runChecked(t, cfg, newRR(1000, 4), w, time.Second)
	lat, ok := thread(t, r, "b").Latency(100)
	require.True(t, ok)
	assert.Equal(t, int64(50*time.Microsecond), lat)

	// Migration cost: a thread moved to another CPU stalls there.
	w = mustParse(t, `
thread mover cpus=0
	run 1ms
	cpus 1
	run 1ms
end`)
	cfg = sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Costs: sim.Costs{Migration: sim.EveryLevel(sim.Fixed(200 * time.Microsecond))}}
	r = runChecked(t, cfg, newRR(1000, 4), w, time.Second)
	mv := thread(t, r, "mover")
	assert.Equal(t, int64(1), mv.Migrations)
	assert.Equal(t, 2*ms+200*int64(time.Microsecond), mv.End)
}

func TestAffinityChangeMovesRunningThread(t *testing.T) {
	w := mustParse(t, `
thread mover cpus=0
	run 1ms
	cpus 1
	run 1ms
	nice 5
	class fifo 10
	class normal
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Trace: sim.TraceFull}
	r := runChecked(t, cfg, newRR(1000, 4), w, time.Second)
	mv := thread(t, r, "mover")
	assert.Equal(t, int64(1), mv.Migrations)
	assert.Equal(t, 2*ms, mv.End)
	var lines []string
	for _, rec := range r.Trace.Records {
		if rec.Kind == sim.KindSetAttr || rec.Kind == sim.KindMigrate {
			lines = append(lines, r.Trace.Format(rec))
		}
	}
	assert.Equal(t, []string{
		"0.001000000 cpu0 setattr mover class=normal nice=0 rtprio=0",
		"0.001000000 cpu1 migrate mover from cpu0",
		"0.002000000 cpu1 setattr mover class=normal nice=5 rtprio=0",
		"0.002000000 cpu1 setattr mover class=fifo nice=5 rtprio=10",
		"0.002000000 cpu1 setattr mover class=normal nice=5 rtprio=0",
	}, lines)
}
