package sim

// This file implements New: a Machine built for a workload under a policy, in phases (the
// scripts compiled, the CPUs and event slots set up, the policy started and told of the groups,
// the first clock interrupt and the initial threads' creation armed).

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// New builds a machine for w under p, as cfg describes, and starts the policy: it calls
// p.Start, then p.AddGroup for each of w's groups (unless cfg.FlattenGroups). It returns an error
// if cfg or w does not validate, if a thread's CPUs are not all on the machine, if the policy's
// tick rate is out of range, or if the policy refuses to start or to create a group. A nil p or
// w, and a cfg.Topology that is nil or has no CPUs (a zero topology.Topology), are errors too.
// The policy must be fresh: a Policy runs on one machine only.
func New(cfg Config, p Policy, w *workload.Workload) (*Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("sim: nil Policy")
	}
	if w == nil {
		return nil, fmt.Errorf("sim: nil Workload")
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	cfg = cfg.withDefaults()
	topo := cfg.Topology
	m := &Machine{cfg: cfg, pol: p, topo: topo, nids: int32(topo.NumIDs()), waitHead: nobody, waitTail: nobody,
		trace: newTrace(cfg.Trace), wl: w, missAt: cfg.Idle.missThreshold()}
	m.budget = uint32(cfg.ExactSamples)
	m.idleRng = *rand.NewPCG(splitmix64(cfg.Seed^0x1D1E), splitmix64(cfg.Seed^0x1D1E0001))
	m.costRng = *rand.NewPCG(splitmix64(cfg.Seed^0xC057), splitmix64(cfg.Seed^0xC0570001))
	k := &cfg.Costs
	m.pays, m.slack, m.ipis = !k.Wakeup.IsZero(), !k.Timer.IsZero(), !k.IPI.IsZero() || len(cfg.Idle.IPICurve) > 0
	m.switches, m.refills, m.migrates, m.ticked = !k.Switch.IsZero(), !k.Refill.IsZero(), !k.Migration.IsZero(), !k.Tick.IsZero()
	m.switchMMs, m.ipiSends, m.payer = !k.SwitchMM.IsZero(), !k.IPISend.IsZero(), nobody
	m.timerExits = !k.TimerExit.IsZero()
	m.exits = !cfg.Idle.Spin && !cfg.Idle.ExitLatency.IsZero()
	m.picks = m.switches || m.switchMMs || m.refills || m.migrates || m.exits || m.timerExits
	m.stalls = m.picks || m.ticked || m.pays || m.ipiSends
	m.checking = cfg.Checks != (Checks{})
	m.env.m = m
	cpus := topo.CPUs()
	m.first, _ = cpus.First()
	m.ctx = m.first
	if q, ok := p.(Queuer); ok {
		m.queued = q
	}
	if ti, ok := p.(TicklessIdle); ok && !cfg.EveryTick {
		m.tickless = ti
	}

	c, err := m.compileScripts(w)
	if err != nil {
		return nil, err
	}

	m.initCPUs()

	if err := m.startPolicy(w, c); err != nil {
		return nil, err
	}

	m.armStart(w)
	return m, nil
}

// compileScripts compiles w's thread declarations into the machine's programs and its pipes,
// and returns the compiler with the names it resolved (groups, pipes, programs). It is New's
// first phase.
func (m *Machine) compileScripts(w *workload.Workload) (*compiler, error) {
	cfg, topo := &m.cfg, m.topo
	c := compiler{pipes: map[string]int32{}, groups: map[string]sched.GroupID{}, progs: map[string]int32{}}
	for i, pp := range w.Pipes {
		c.pipes[pp.Name] = int32(i)
		m.pipes = append(m.pipes, pipe{cap: int64(pp.Cap), room: int64(max(pp.Room, 1)),
			recvHead: nobody, recvTail: nobody, sendHead: nobody, sendTail: nobody})
	}
	if !cfg.FlattenGroups {
		for i, g := range w.Groups {
			c.groups[g.Name] = sched.GroupID(i + 1)
		}
	}
	for i := range w.Threads {
		c.progs[w.Threads[i].Name] = int32(i)
	}
	all := topo.CPUs()
	procs := map[string]int32{}
	for i := range w.Threads {
		d := &w.Threads[i]
		if !d.CPUs.SubsetOf(all) {
			return nil, fmt.Errorf("sim: thread %q: CPUs %s are not all on the machine (%s)", d.Name, d.CPUs, all)
		}
		p := c.compile(d)
		proc := cmp.Or(d.Process, d.Name)
		if _, ok := procs[proc]; !ok {
			procs[proc] = int32(len(procs))
		}
		p.proc = procs[proc]
		p.runAttr = p.attr
		if cfg.FlattenGroups {
			p.runAttr.Group = sched.RootGroup
		}
		p.attrIx, p.base = int32(len(m.attrs)), int32(len(m.code))
		m.attrs = append(m.attrs, p.runAttr)
		m.code = append(m.code, p.code...)
		m.progs = append(m.progs, p)
	}
	for i := range w.Threads {
		m.checkAffinityOps(w.Threads[i].Ops, all)
	}
	if m.err != nil {
		return nil, m.err
	}
	return &c, nil
}

// initCPUs sets up the CPUs and the event slots: tick, done and IPI per CPU id, one for spawns,
// then one per thread.
func (m *Machine) initCPUs() {
	cfg, topo := &m.cfg, m.topo
	m.cpus = make([]cpu, m.nids)
	m.q.addSlots(int(2 + 2*m.nids))
	for id := range topo.CPUs().All() {
		cp := &m.cpus[id]
		cp.online = true
		cp.cur, cp.lastThread, cp.lastProc, cp.stopped = nobody, nobody, nobody, nobody
		cp.tickState = CPUIdle
		cp.speed = int64(topo.Capacity(id))
		if cfg.Speed != nil {
			cp.speed = int64(cfg.Speed[id])
		}
		sib := topo.Siblings(id)
		sib.Remove(id)
		cp.siblings = slices.Collect(sib.All())
		cp.rate = m.rateOf(cp)
	}
}

// startPolicy starts the policy on the machine, checks its tick rate and w's attributes against
// it, and creates w's control groups (unless Config.FlattenGroups), with the groups c resolved.
func (m *Machine) startPolicy(w *workload.Workload, c *compiler) error {
	cfg, topo, p := &m.cfg, m.topo, m.pol
	scfg := sched.Config{Topology: topo, Hz: cfg.Hz, StatHz: cfg.StatHz, Seed: cfg.Seed}
	if err := p.Start(scfg, &m.env); err != nil {
		return fmt.Errorf("sim: %s: %w", p.Name(), err)
	}
	m.tickHz = int64(p.TickHz())
	if m.tickHz < 1 || m.tickHz > 1_000_000 {
		return fmt.Errorf("sim: %s: tick rate %d outside 1..1000000", p.Name(), m.tickHz)
	}
	m.tickCap = int64(time.Second) / m.tickHz / 2
	if int64(cfg.Costs.Tick.P50) >= m.tickCap {
		return fmt.Errorf("sim: tick cost %v (median) is not below half the tick period of %s", cfg.Costs.Tick.P50, p.Name())
	}
	if err := m.checkAttrs(w); err != nil {
		return err
	}
	if !cfg.FlattenGroups {
		for i, g := range w.Groups {
			sg := sched.Group{ID: sched.GroupID(i + 1), Parent: c.groups[g.Parent], Weight: g.Weight, Idle: g.Idle}
			if sg.Weight == 0 {
				sg.Weight = sched.DefaultWeight
			}
			if err := p.AddGroup(sg); err != nil {
				return fmt.Errorf("sim: %s: group %q: %w", p.Name(), g.Name, err)
			}
		}
	}
	return nil
}

// armStart arms the first clock interrupt of every CPU and the creation of w's initial threads.
func (m *Machine) armStart(w *workload.Workload) {
	topo := m.topo
	m.online = slices.Collect(topo.CPUs().All())
	m.tickK, m.tickAt = 1, m.tickTime(1)
	m.tickQ, m.tickR = int64(time.Second)/m.tickHz, int64(time.Second)%m.tickHz
	m.tickRem = m.tickR
	m.q.arm(m.slotTick(), m.tickAt)
	n := 0
	for i := range w.Threads {
		n += w.Threads[i].Instances()
	}
	m.spawns = slices.Grow(m.spawns, n) // at once: appending grew it by a quarter at a time
	for i := range w.Threads {
		d := &w.Threads[i]
		for range d.Instances() {
			m.spawns = append(m.spawns, spawn{at: int64(d.Start), prog: int32(i)})
		}
	}
	slices.SortStableFunc(m.spawns, func(a, b spawn) int { return int(min(max(a.at-b.at, -1), 1)) })
	m.live = len(m.spawns)
	// Room for the initial threads at once: growing by appending would allocate about twice
	// their size again on the way.
	n = min(len(m.spawns), m.cfg.MaxThreads)
	m.threads = make([]thread, 0, n)
	m.q.grow(n)
	if len(m.spawns) > 0 {
		m.q.arm(m.slotSpawn(), m.spawns[0].at)
	}
}

func (m *Machine) checkAffinityOps(ops []workload.Op, all topology.CPUSet) {
	for i := range ops {
		op := &ops[i]
		if op.Kind == workload.SetCPUs && !op.CPUs.SubsetOf(all) && m.err == nil {
			m.err = fmt.Errorf("sim: cpus %s: not all on the machine (%s)", op.CPUs, all)
		}
		m.checkAffinityOps(op.Body, all)
	}
}
