package ule

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// runSchedulerOps drives a Scheduler through an operation stream (fork, tick, sleep, wake,
// yield, exit, attribute changes) on one of the fixtures under one of the presets, checking
// every invariant after every call (testMachine.check).
func runSchedulerOps(t *testing.T, ops []byte) {
	if len(ops) < 2 {
		return
	}
	if len(ops) > 600 { // long streams add time, not coverage
		ops = ops[:600]
	}
	tops := []*topology.Topology{topology.Uniform(1, 1, 1, 2, 1), topology.Uniform(2, 1, 1, 2, 2), topology.Uniform(1, 1, 4, 3, 2)}
	names := Presets()
	top := tops[int(ops[0])%len(tops)]
	p, _ := Preset(names[int(ops[1])%len(names)])
	p.AlwaysSteal = ops[1]&0x80 != 0
	p.BalanceInterval = 1 + int(ops[1]>>4&7)*5
	m := newTestMachine(t, p, top)
	m.env.explaining = ops[0]&0x80 != 0
	ops = ops[2:]
	ncpu := top.NumCPUs()
	asleep := map[sched.ID]bool{}
	next := sched.ID(0)
	for len(ops) >= 2 {
		op, arg := ops[0], ops[1]
		ops = ops[2:]
		cpu := topology.CPU(int(arg) % ncpu)
		switch op % 8 {
		case 0: // fork
			if next >= 40 {
				break
			}
			a := sched.Attr{Nice: int(arg%41) - 20}
			switch op >> 3 % 8 {
			case 1:
				a.Class, a.RTPrio, a.RTScale = sched.RR, int(arg%32), sched.RTFreeBSD
			case 2:
				a.Class, a.RTPrio, a.RTScale = sched.FIFO, int(arg%32), sched.RTFreeBSD
			case 3:
				a.Class = sched.Idle
			case 4:
				a.Affinity = topology.CPUSetOf(cpu)
			}
			parent := sched.ID(-1)
			if next > 0 && op&0x80 != 0 {
				parent = sched.ID(int(arg) % int(next))
			}
			if _, ok := m.s.Thread(parent); !ok {
				parent = -1 // a parent must exist (it is the thread that forks)
			}
			m.s.Fork(m.now, next, parent, cpu, a)
			m.s.Wakeup(m.now, next, cpu, sched.WakeFork)
			m.check()
			m.serve()
			next++
		case 1, 2: // ticks
			for range 1 + int(arg%16) {
				m.tick()
			}
		case 3: // the thread on cpu sleeps
			if id := m.running(cpu); id >= 0 {
				m.sleep(cpu)
				asleep[id] = true
			}
		case 4: // wake a sleeper from cpu
			for id := range next {
				if asleep[(id+sched.ID(arg))%next] {
					id = (id + sched.ID(arg)) % next
					delete(asleep, id)
					m.wake(id, cpu)
					break
				}
			}
		case 5: // yield or exit
			if id := m.running(cpu); id >= 0 {
				why := sched.Yield
				if op&0x80 != 0 {
					why = sched.Exit
				}
				m.s.Stop(m.now, cpu, id, why)
				m.cur[cpu] = -1
				m.check()
				m.pick(cpu)
				m.serve()
			}
		case 6: // change attributes of some live thread
			if next == 0 {
				break
			}
			id := sched.ID(int(arg) % int(next))
			if m.s.thread(id) == nil {
				break
			}
			a := sched.Attr{Nice: int(op>>3%41) - 20}
			if op&0x80 != 0 {
				a.Affinity = topology.CPUSetOf(cpu)
			}
			if op&0x40 != 0 {
				a.Class, a.RTPrio, a.RTScale = sched.RR, int(arg%32), sched.RTFreeBSD
			}
			m.s.SetAttr(m.now, id, a)
			m.check()
			m.serve()
		case 7: // a preemption the machine decides on its own (e.g. a higher-level event)
			m.env.resched = append(m.env.resched, cpu)
			m.serve()
		}
	}
	// Every runnable thread is somewhere; idle CPUs with work get it within a tick.
	m.tick()
	for c := range top.CPUs().All() {
		if m.running(c) < 0 && m.s.sys.cpus[c].Load() > 0 {
			t.Fatalf("cpu%d idles with load %d", c, m.s.sys.cpus[c].Load())
		}
	}
}

func FuzzScheduler(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 2, 1, 15, 3, 0, 1, 5, 4, 1, 1, 3})
	f.Add([]byte{1, 3, 0, 0, 0x08, 1, 0x20, 2, 1, 9, 3, 1, 5, 1, 4, 2, 6, 3})
	f.Add([]byte{2, 0x91, 0, 5, 0, 7, 0, 9, 0x80, 1, 1, 15, 5, 5, 0x85, 7, 6, 2, 7, 3})
	f.Fuzz(runSchedulerOps)
}

// TestSchedulerModelStreams runs pseudo-random operation streams through runSchedulerOps, so
// that plain `go test` exercises every preset on every fixture.
func TestSchedulerModelStreams(t *testing.T) {
	for top := range byte(3) {
		for preset := range byte(len(Presets())) {
			ops := []byte{top | 0x80, preset | 0x10}
			x := uint32(top)*31 + uint32(preset)*7 + 1
			for range 400 {
				x = x*1664525 + 1013904223
				ops = append(ops, byte(x>>24), byte(x>>16))
			}
			t.Run(fmt.Sprintf("top=%d/preset=%s", top, Presets()[preset]), func(t *testing.T) { runSchedulerOps(t, ops) })
		}
	}
}
