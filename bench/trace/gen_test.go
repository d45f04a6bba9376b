package trace

import (
	"io"
	"strconv"
)

// ftraceGen is an io.Reader of generated `trace-cmd report -N -t` text, made line by line as
// it is read (it holds no trace): tasks tasks on cpus CPUs taking turns, each running 50 us
// then sleeping until the next task on its CPU wakes it, for lines lines.
type ftraceGen struct {
	tasks, cpus, lines int
	n                  int
	now                int64
	cur                []int // per CPU, the running task's index, -1 idle
	next               int
	buf                []byte
	off                int
}

func newFtraceGen(lines, tasks, cpus int) *ftraceGen {
	g := &ftraceGen{tasks: tasks, cpus: cpus, lines: lines, cur: make([]int, cpus)}
	for c := range g.cur {
		g.cur[c] = -1
	}
	g.buf = append(g.buf, "cpus="...)
	g.buf = strconv.AppendInt(g.buf, int64(cpus), 10)
	g.buf = append(g.buf, '\n')
	return g
}

func (g *ftraceGen) Read(p []byte) (int, error) {
	for g.off == len(g.buf) {
		if g.n >= g.lines {
			return 0, io.EOF
		}
		g.buf, g.off = g.buf[:0], 0
		g.step()
	}
	n := copy(p, g.buf[g.off:])
	g.off += n
	return n, nil
}

func (g *ftraceGen) comm(b []byte, i int) []byte {
	b = append(b, "worker-"...)
	return strconv.AppendInt(b, int64(i), 10)
}

func (g *ftraceGen) head(b []byte, task, pid, cpu int, event string) []byte {
	start := len(b)
	if task < 0 {
		b = append(b, "<idle>"...)
	} else {
		b = g.comm(b, task)
	}
	b = leftPad(b, start, 16)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, " ["...)
	b = appendPad(b, int64(cpu), 3, '0')
	b = append(b, "] "...)
	b = appendPad(b, g.now/1e9, 5, ' ')
	b = append(b, '.')
	b = appendPad(b, g.now%1e9, 9, '0')
	b = append(b, ": "...)
	b = append(b, event...)
	return append(b, ": "...)
}

func (g *ftraceGen) pid(i int) int {
	if i < 0 {
		return 0
	}
	return 100 + i
}

// step appends one wake-up and one switch on the next CPU.
func (g *ftraceGen) step() {
	c := g.n / 2 % g.cpus
	g.now += 50_000
	prev := g.cur[c]
	next := g.next % g.tasks
	g.next++
	for _, x := range g.cur {
		if x == next {
			next = -1 // running elsewhere: this CPU goes idle
		}
	}
	b := g.buf
	if next >= 0 {
		b = g.head(b, prev, g.pid(prev), c, "sched_wakeup")
		b = append(b, "comm="...)
		b = g.comm(b, next)
		b = append(b, " pid="...)
		b = strconv.AppendInt(b, int64(g.pid(next)), 10)
		b = append(b, " prio=120 target_cpu="...)
		b = appendPad(b, int64(c), 3, '0')
		b = append(b, '\n')
	}
	b = g.head(b, prev, g.pid(prev), c, "sched_switch")
	b = append(b, "prev_comm="...)
	if prev < 0 {
		b = append(b, "swapper/"...)
		b = strconv.AppendInt(b, int64(c), 10)
	} else {
		b = g.comm(b, prev)
	}
	b = append(b, " prev_pid="...)
	b = strconv.AppendInt(b, int64(g.pid(prev)), 10)
	b = append(b, " prev_prio=120 prev_state=S ==> next_comm="...)
	if next < 0 {
		b = append(b, "swapper/"...)
		b = strconv.AppendInt(b, int64(c), 10)
	} else {
		b = g.comm(b, next)
	}
	b = append(b, " next_pid="...)
	b = strconv.AppendInt(b, int64(g.pid(next)), 10)
	b = append(b, " next_prio=120\n"...)
	g.buf = b
	g.cur[c] = next
	g.n += 2
}
