// This file implements Group, the kernel's struct task_group with its per-CPU queues and group
// entities, and the group-weight arithmetic (calc_group_shares, the cgroup cpu.weight mapping).

package cfs

import "fmt"

// A Group is a task group: a cgroup of the cpu controller, the kernel's struct task_group. It
// has shares (cpu.weight), an idle flag (cpu.idle) and, on every CPU, a [Queue] for its members
// and a group [Entity] that represents the group in its parent's queue on that CPU. Groups nest;
// the root group is implicit (a nil *Group) and its queue on each CPU is the CPU's root queue.
//
// The per-CPU queue and entity are attached lazily, when a CPU first enqueues something in the
// group. A Group is not safe for concurrent use.
type Group struct {
	name string
	// parent is the parent group, or nil for a child of the root group.
	parent *Group
	depth  int // depth of the group's entities: 0 for a child of the root group
	shares uint64
	idle   bool
	cpus   []groupCPU
	// loadSum is the sum over the CPUs of ScaleLoadDown of the group's queue load: the model's
	// tg->load_avg, which the kernel keeps as each cfs_rq's contribution changes
	// (update_tg_load_avg) rather than summing the CPUs when it reads it. Queue.setLoad keeps it;
	// entityShares reads it.
	loadSum uint64
}

// groupCPU is a group's state on one CPU: tg->cfs_rq[cpu] and tg->se[cpu].
type groupCPU struct {
	q  Queue
	se Entity
}

// NewGroup returns a group named name below parent (nil for the root group) for a machine of
// ncpus CPUs, with the default shares NICE_0_LOAD (cpu.weight 100) and not idle. NewGroup panics
// if ncpus < 1.
func NewGroup(name string, parent *Group, ncpus int) *Group {
	if ncpus < 1 {
		panic(fmt.Sprintf("cfs: NewGroup: %d CPUs", ncpus))
	}
	g := &Group{name: name, parent: parent, shares: NiceZeroLoad, cpus: make([]groupCPU, ncpus)}
	if parent != nil {
		g.depth = parent.depth + 1
	}
	return g
}

// Name returns the group's name.
func (g *Group) Name() string { return g.name }

// Shares returns the group's shares in load units (tg->shares): NICE_0_LOAD by default,
// scale_load(3) while the group is idle.
func (g *Group) Shares() uint64 { return g.shares }

// Idle reports whether the group is idle (cpu.idle = 1, tg->idle).
func (g *Group) Idle() bool { return g.idle }

// Entity returns the group's entity on CPU c, or nil if c never enqueued anything in the group.
func (g *Group) Entity(c *RunQueue) *Entity {
	gc := &g.cpus[c.id]
	if gc.q.cpu == nil {
		return nil
	}
	return &gc.se
}

// queue returns the group's queue on CPU c, or nil if c never enqueued anything in the group.
func (g *Group) queue(c *RunQueue) *Queue {
	gc := &g.cpus[c.id]
	if gc.q.cpu == nil {
		return nil
	}
	return &gc.q
}

// busy reports whether anything of g is queued on any CPU.
func (g *Group) busy() bool {
	for i := range g.cpus {
		if gc := &g.cpus[i]; gc.q.nrRunning > 0 || gc.se.onRQ {
			return true
		}
	}
	return false
}

// SetShares sets the group's shares in load units, clamped to [scale_load(MIN_SHARES),
// scale_load(MAX_SHARES)]: sched_group_set_shares. It returns an error, as the kernel returns
// EINVAL, if the group is idle (an idle group's weight is fixed). The model applies new shares
// at the group entities' next update, so SetShares panics if anything of the group is queued.
func (g *Group) SetShares(shares uint64) error {
	if g.idle {
		return fmt.Errorf("cfs: group %q is idle: its shares cannot be set", g.name)
	}
	if g.busy() {
		panic("cfs: Group.SetShares of a group with queued entities")
	}
	g.shares = min(max(shares, ScaleLoad(minShares)), ScaleLoad(maxShares))
	return nil
}

// SetCPUWeight sets the group's shares from a cgroup v2 cpu.weight value, w*1024/100 rounded to
// the nearest (cpu_weight_write_u64). It returns an error if w is outside [1, 10000], as the
// kernel returns ERANGE, or if the group is idle. SetCPUWeight panics if anything of the group
// is queued.
func (g *Group) SetCPUWeight(w uint64) error {
	if w < 1 || w > 10000 {
		return fmt.Errorf("cfs: cpu.weight %d of group %q outside [1, 10000]", w, g.name)
	}
	return g.SetShares(ScaleLoad((w*1024 + 50) / 100))
}

// CPUWeight returns the group's cpu.weight as the kernel reports it:
// scale_load_down(shares)*100/1024 rounded to the nearest (cpu_weight_read_u64).
func (g *Group) CPUWeight() uint64 { return (ScaleLoadDown(g.shares)*100 + 512) / 1024 }

// SetIdle sets or clears the group's idle flag (cpu.idle): sched_group_set_idle. An idle group's
// entities count as idle ([Entity.IsIdle]) and its shares become scale_load(WEIGHT_IDLEPRIO),
// the weight of a SCHED_IDLE task; clearing the flag resets the shares to NICE_0_LOAD, as the
// kernel does. Setting the flag to the value it has changes nothing, not even custom shares
// (the kernel returns early). The kernel can change the flag while the group runs; the model
// panics if anything of the group is queued.
func (g *Group) SetIdle(idle bool) {
	if g.idle == idle {
		return
	}
	if g.busy() {
		panic("cfs: Group.SetIdle of a group with queued entities")
	}
	g.idle = idle
	if idle {
		g.shares = ScaleLoad(weightIdlePrio)
	} else {
		g.shares = NiceZeroLoad
	}
}

// on returns g's state on CPU c, attaching it on first use: the group's queue gets its
// min_vruntime initialised, and its entity is linked below the parent group's entity on c.
func (g *Group) on(c *RunQueue) *groupCPU {
	if c.id >= len(g.cpus) {
		panic(fmt.Sprintf("cfs: group %q was created for %d CPUs, used on CPU %d", g.name, len(g.cpus), c.id))
	}
	gc := &g.cpus[c.id]
	if gc.q.cpu != nil {
		return gc
	}
	gc.q.init(c, g, &gc.se)
	se := &gc.se
	se.node.Init(se)
	se.Name = g.name
	se.myQ = &gc.q
	se.group = g
	se.cpu = c
	se.depth = g.depth
	se.load = LoadWeight{Weight: g.shares}
	if g.parent == nil {
		se.q = &c.root
	} else {
		pc := g.parent.on(c)
		se.q = &pc.q
		se.parent = &pc.se
	}
	return gc
}

// entityShares returns the weight of g's entity on CPU c from the group's loads: the model's
// calc_group_shares (see [GroupShares]), with this CPU's load and the sum over the others, the
// group's sum less this CPU's (the kernel's tg_weight = tg->load_avg less this cfs_rq's
// contribution, plus its load).
func (g *Group) entityShares(c *RunQueue) uint64 {
	load := ScaleLoadDown(g.cpus[c.id].q.load.Weight)
	return GroupShares(g.shares, load, g.loadSum-load)
}

// GroupShares returns the weight of a group entity on one CPU: tgShares*load/(load+others),
// clamped to [MIN_SHARES, tgShares], where load is the group's unscaled queue load on that CPU
// and others the sum of its unscaled queue loads on the other CPUs.
//
// This is the kernel's calc_group_shares (v6.5) simplified: the kernel approximates the other
// CPUs' load, and floors this CPU's, with PELT averages (tg->load_avg, cfs_rq->avg.load_avg);
// the model uses the instantaneous queue weights instead, which is the exact formula (1) of the
// kernel's comment and what the PELT averages converge to for always-runnable tasks. On a single
// CPU the result is tgShares whenever the group has load, as in the uniprocessor kernel. The
// floor MIN_SHARES is unscaled (2), as in the kernel, so that a group with tiny shares spread
// over many CPUs still gets its proportional weight.
func GroupShares(tgShares, load, others uint64) uint64 {
	shares := tgShares * load
	if w := load + others; w != 0 {
		shares /= w
	}
	return min(max(shares, minShares), tgShares)
}
