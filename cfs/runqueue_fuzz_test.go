package cfs

import (
	"testing"
)

// runCPUOps decodes ops into a stream of CPU operations on a classic CFS (v6.5) machine: the
// first byte chooses options, the rest is run by runOps.
func runCPUOps(t *testing.T, ops []byte) {
	p := DefaultParams()
	if len(ops) > 0 {
		p.FavorNonIdleTick = ops[0]&1 != 0
		p.NextBuddy = ops[0]&2 != 0
		p.ChildRunsFirst = ops[0]&4 != 0
		p.NrLatency = 2 // makes the buddy paths reachable with few tasks
		ops = ops[1:]
	}
	runOps(t, p, ops)
}

// runEEVDFOps is runCPUOps for the EEVDF versions: bit 3 of the first byte chooses v6.6 or a
// later version, and with it bit 5 chooses v6.18 over v7.1; the other bits choose features and
// the CPU count (bits 5-7 for v6.6, 6-7 otherwise).
func runEEVDFOps(t *testing.T, ops []byte) {
	if len(ops) == 0 {
		return
	}
	h := ops[0]
	p := preset(V66, 1+int(h>>5))
	p.RunToParity = h&1 == 0
	p.NextBuddy = h&2 != 0
	p.PlaceLag = h&4 == 0
	if h&8 != 0 {
		// v6.18 accepts every feature v7.1 does (Params.Validate).
		v := V71
		if h&32 != 0 {
			v = V618
		}
		p = preset(v, 1+int(h>>6))
		p.RunToParity = h&1 == 0
		p.PreemptShort = h&2 == 0
		p.PlaceRelDeadline = h&4 == 0
		p.NextBuddy = h&16 != 0
		p.PickBuddy = h&16 == 0
	}
	runOps(t, p, ops[1:])
}

// runOps runs ops on a machine with parameters p, three groups (one of them idle, one nested)
// and six tasks of mixed policies and nice levels, checking every invariant after each
// operation. Time advances by a decoded amount between operations. On an EEVDF version every
// queue's pick is also held to the naive model after each operation, and the renice operation
// sets a custom slice instead when its argument has bit 7 set. The sleep operation makes a
// queued task exit instead when its argument has bit 7 set; an exited task is never used again.
func runOps(t *testing.T, p Params, ops []byte) {
	c := NewRunQueue(0, p)
	ga := NewGroup("ga", nil, 1)
	gi := NewGroup("gi", nil, 1)
	gi.SetIdle(true)
	gn := NewGroup("gn", ga, 1)
	groups := []*Group{nil, ga, gi, gn}
	tasks := []*Entity{
		NewTask("t0", Normal, 0), NewTask("t1", Normal, 5), NewTask("t2", Batch, -3),
		NewTask("t3", Idle, 0), NewTask("t4", Normal, -10), NewTask("t5", Normal, 19),
	}
	started := make([]bool, len(tasks))
	exited := make([]bool, len(tasks))
	minSeen := map[*Queue]uint64{}
	now := uint64(1)
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i]%8, int(ops[i+1])
		now += uint64(arg) * 50_000
		tk := tasks[arg%len(tasks)]
		k := arg % len(tasks)
		if exited[k] {
			continue
		}
		switch op {
		case 0: // fork a task that never ran, from the running task if it can be its parent
			if started[k] {
				continue
			}
			started[k] = true
			tk.SetGroup(groups[(arg/len(tasks))%len(groups)])
			var parent *Entity
			if cur := c.Curr(); cur != nil && arg&64 != 0 {
				parent = cur
			}
			c.Fork(parent, tk, now)
		case 1: // wake a sleeping task (a delayed sleeper is still queued)
			if !started[k] || (tk.OnRQ() && !tk.Delayed()) {
				continue
			}
			c.Wakeup(tk, now)
		case 2: // put a queued task to sleep, or make it exit (a delayed one too)
			switch {
			case arg&128 != 0 && tk.OnRQ():
				c.Exit(tk, now)
				exited[k] = true
				if tk.OnRQ() || tk.Delayed() {
					t.Fatalf("%v exited but is still queued (delayed %t)", tk, tk.Delayed())
				}
			case tk.OnRQ() && !tk.Delayed():
				c.Sleep(tk, now)
			default:
				continue
			}
		case 3, 4: // tick
			c.Tick(now)
		case 5: // schedule
			c.Schedule(now)
		case 6: // renice, or a custom slice
			switch {
			case !started[k]:
			case arg&128 != 0 && p.Version.EEVDF():
				c.SetSlice(tk, uint64(arg%8)*300_000, now)
			default:
				c.SetNice(tk, arg%40-20, now)
			}
		case 7: // yield, or finish a delayed dequeue
			if arg&128 != 0 && p.Version.EEVDF() {
				c.DequeueDelayed(tk, now)
			} else {
				c.Yield(now)
			}
		}
		checkCPU(t, c, minSeen)
		if p.Version.EEVDF() {
			checkPicks(t, c.Root(), p)
		}
		if c.Curr() != nil && !c.Curr().OnRQ() && !c.NeedResched() {
			t.Fatalf("running task %v is not queued and no resched is pending", c.Curr())
		}
		if c.NeedResched() && op != 5 && arg&1 == 0 {
			c.Schedule(now)
			checkCPU(t, c, minSeen)
		}
	}
}

func FuzzCPU(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 0, 2, 5, 0, 3, 3, 3, 3, 5, 0})
	f.Add([]byte{1, 0, 9, 0, 3, 0, 10, 0, 5, 3, 40, 3, 40, 2, 9, 1, 9, 5, 0, 6, 17, 7, 0, 5, 0})
	f.Add([]byte{7, 0, 8, 0, 21, 0, 15, 0, 4, 5, 1, 3, 20, 3, 20, 3, 20, 2, 15, 2, 8, 1, 8, 1, 15})
	f.Fuzz(runCPUOps)
}

// checkPicks holds the pick of q and of every queue below it to the naive model.
func checkPicks(t *testing.T, q *Queue, p Params) {
	t.Helper()
	checkEEVDFAgainstModel(t, q, p)
	for _, e := range queuedEntities(q) {
		if e.myQ != nil {
			checkPicks(t, e.myQ, p)
		}
	}
}

func FuzzEEVDFCPU(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 0, 2, 5, 0, 3, 3, 3, 3, 5, 0, 2, 1, 1, 1})
	f.Add([]byte{8, 0, 9, 0, 3, 0, 10, 0, 5, 3, 40, 3, 40, 2, 9, 1, 9, 5, 0, 6, 145, 7, 0, 5, 0})
	f.Add([]byte{31, 0, 8, 0, 21, 0, 15, 0, 4, 5, 1, 3, 20, 3, 20, 3, 20, 2, 15, 2, 8, 1, 8, 1, 15, 6, 200})
	f.Add([]byte{105, 0, 0, 0, 1, 0, 2, 0, 3, 6, 131, 3, 7, 3, 7, 5, 0, 2, 0, 1, 0, 3, 9, 5, 0, 7, 0, 5, 0})
	f.Add([]byte{72, 0, 6, 0, 12, 0, 18, 6, 134, 6, 140, 3, 2, 1, 1, 3, 2, 5, 0, 2, 6, 3, 2, 1, 6, 5, 0})
	f.Add([]byte{8, 0, 0, 0, 1, 0, 2, 3, 20, 5, 0, 2, 0, 2, 128, 5, 0, 2, 129, 3, 9, 5, 0})
	f.Fuzz(runEEVDFOps)
}
