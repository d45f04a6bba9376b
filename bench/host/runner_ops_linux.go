package host

// This file implements a runner thread's behaviour script: each workload operation
// (run, sleep, every, send/receive on a pipe, fork, attribute changes) on the host.

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

func (r *runner) sample(t *hthread, d workload.Dist) int64 {
	v := d.Sample(t.rng)
	if v > workload.MaxDuration {
		return 1 << 62
	}
	return int64(v)
}

// exec runs a behaviour script.
func (r *runner) exec(t *hthread, ops []workload.Op) result {
	for i := range ops {
		if r.stopping() {
			return stopped
		}
		op := &ops[i]
		if r.hook != nil {
			r.hook(t.st.Name, op)
		}
		switch op.Kind {
		case workload.Run:
			used, halted := r.spin.spin(r.sample(t, op.Time), &r.stop, r.end)
			t.st.Work += used
			if halted {
				return stopped
			}
		case workload.Sleep:
			deadline := r.clk.now() + r.sample(t, op.Time)
			if res := r.wakeAt(t, deadline); res != cont {
				return res
			}
		case workload.Send, workload.Recv:
			p := r.pipes[op.Name]
			for range max(op.N, 1) {
				if res := r.message(t, p, op.Kind == workload.Send); res != cont {
					return res
				}
			}
		case workload.Fork:
			if err := r.fork(t, op.Name, max(op.N, 1)); err != nil {
				r.fail(err)
				return stopped
			}
		case workload.Join:
			for t.kids.Load() > 0 {
				select {
				case <-t.kidEnd:
				case <-r.stopCh:
					return stopped
				}
			}
		case workload.Yield:
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
		case workload.Poll:
			r.fail(fmt.Errorf("%s: poll (a busy-wait on pipe %s) is not run on the host", t.st.Name, op.Name))
			return stopped
		case workload.Spin:
			r.fail(fmt.Errorf("%s: spin (compute until a wall-clock time) is not run on the host", t.st.Name))
			return stopped
		case workload.Until:
			r.fail(fmt.Errorf("%s: until (a wait on pipe %s and others) is not run on the host", t.st.Name, op.Name))
			return stopped
		case workload.Exit:
			return exited
		case workload.Loop:
			for {
				if res := r.exec(t, op.Body); res != cont {
					return res
				}
			}
		case workload.Repeat:
			for range op.N {
				if res := r.exec(t, op.Body); res != cont {
					return res
				}
			}
		case workload.Every:
			if res := r.every(t, op); res != cont {
				return res
			}
		case workload.Nice, workload.SetClass, workload.SetCPUs, workload.SetGroup:
			if err := r.setAttr(t, op); err != nil {
				r.fail(err)
				return stopped
			}
		}
	}
	return cont
}

// every runs op's body now and then at each multiple of the period after the first, skipping
// the periods that have already begun, as the simulator does.
func (r *runner) every(t *hthread, op *workload.Op) result {
	base, period := r.clk.now(), int64(op.Time.A)
	k := int64(0)
	for n := 1; ; n++ {
		if res := r.exec(t, op.Body); res != cont {
			return res
		}
		t.st.Request.Add(r.clk.now() - (base + k*period))
		if op.N > 0 && n >= op.N {
			return cont
		}
		k++
		if now := r.clk.now(); base+k*period < now {
			k = (now - base + period - 1) / period
		}
		if res := r.wakeAt(t, base+k*period); res != cont {
			return res
		}
	}
}

// wakeAt sleeps until deadline and records the wake-up latency.
func (r *runner) wakeAt(t *hthread, deadline int64) result {
	if deadline > r.end {
		r.sleepUntil(r.end)
		return stopped
	}
	now, res := r.sleepUntil(deadline)
	if res != cont {
		return res
	}
	t.st.Wakeup.Add(max(0, now-deadline))
	t.st.Wakeups++
	return cont
}

// sleepUntil sleeps until the monotonic time t, or until the run is halted (halt wakes the
// futex on r.stop), and returns the time it woke.
func (r *runner) sleepUntil(t int64) (int64, result) {
	if now := sleepUntilStop(&r.stop, t); now >= t {
		return now, cont
	}
	return 0, stopped
}

// gives numbers a semaphore's gives and keeps the times of the last len(at), so that a taker that
// blocked can count its wake-up from the give that woke it: the first give after it found the
// count at zero, as the simulator counts a wake-up from the waker's call. The last give before
// the taker runs is not that one when the giver gives again before the taker gets a CPU (a sender
// filling the pipe while the receiver it woke waits behind it).
type gives struct {
	n  atomic.Int64
	at [64]atomic.Int64
}

// add records a give at time now, before the give's write.
func (g *gives) add(now int64) {
	k := g.n.Add(1) - 1
	g.at[k%int64(len(g.at))].Store(now)
}

// since returns the time of the first give numbered k or later (k from n before the taker's
// read that found zero), or of the last give if none is numbered k yet (the give the taker
// missed was under way) or k has been overwritten.
func (g *gives) since(k int64) int64 {
	n := g.n.Load()
	if n == 0 {
		return 0
	}
	if k >= n || n-k > int64(len(g.at)) {
		k = n - 1
	}
	return g.at[k%int64(len(g.at))].Load()
}

// message sends one message into p or receives one from it.
func (r *runner) message(t *hthread, p *hpipe, send bool) result {
	if send {
		if p.cap > 0 {
			if res := r.take(t, p.slots, &p.recvs); res != cont {
				return res
			}
		}
		p.sends.add(r.clk.now())
		give(p.items)
		return cont
	}
	if res := r.take(t, p.items, &p.sends); res != cont {
		return res
	}
	r.messages.Add(1)
	if p.cap > 0 {
		p.recvs.add(r.clk.now())
		give(p.slots)
	}
	return cont
}

// take decrements the semaphore fd, blocking in poll while it is zero. A take that blocked is a
// wake-up, whose latency is counted from the give on the other side that woke its last poll:
// the first of g's gives after its last read that found zero.
func (r *runner) take(t *hthread, fd int, g *gives) result {
	status, errno, blocked, first, now := takeOrWait(fd, r.stopfd, r.end, &r.stop, g)
	switch status {
	case 1, 2:
		return stopped
	case 3:
		r.fail(fmt.Errorf("host: eventfd read: %w", errno))
		return stopped
	}
	if blocked {
		t.st.Wakeup.Add(max(0, now-g.since(first)))
		t.st.Wakeups++
	}
	return cont
}

func give(fd int) {
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	_, _ = unix.Write(fd, one[:])
}

// fork starts n threads of the named template as children of parent.
func (r *runner) fork(parent *hthread, name string, n int) error {
	d := r.tmpl[name]
	for range n {
		r.mu.Lock()
		if len(r.threads) >= MaxThreads {
			r.mu.Unlock()
			return limitErr("forks would create more than %d threads", MaxThreads)
		}
		k := r.made[name]
		r.made[name]++
		t := r.newThread(d, name+"."+strconv.Itoa(k), parent)
		r.threads = append(r.threads, t)
		r.mu.Unlock()
		parent.kids.Add(1)
		r.live.Add(1)
		go r.thread(t, nil, nil)
	}
	return nil
}

// setAttr applies a nice, class, cpus or group op to the calling thread.
func (r *runner) setAttr(t *hthread, op *workload.Op) error {
	tid := int(t.tid.Load())
	switch op.Kind {
	case workload.Nice:
		t.attr.Nice = op.N
		if t.skip.nice {
			return nil
		}
		return setNice(tid, op.N)
	case workload.SetClass:
		t.attr.Class, t.attr.RTPrio = op.Class, op.N
		if t.skip.class {
			return nil
		}
		return r.applyClass(t, tid)
	case workload.SetCPUs:
		t.attr.Affinity = op.CPUs
		if t.skip.cpus {
			return nil
		}
		return setAffinity(tid, op.CPUs, r.plan.allowed)
	case workload.SetGroup:
		t.group = op.Name
		if t.skip.group || r.cg == nil {
			return nil
		}
		return r.cg.move(tid, op.Name)
	}
	return nil
}
