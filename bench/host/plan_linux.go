package host

// This file implements the check before a run: what the workload asks of the host, and what the
// host cannot do.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// skips are the requests of one thread declaration left out with Options.SkipUnsupported.
type skips struct {
	class, nice, slice, cpus, group bool
}

// A runPlan is what the check found: the process's CPUs, the cpu controller, and what to skip.
type runPlan struct {
	allowed topology.CPUSet
	ctl     controller
	flatten bool // no groups at all
	skip    map[*workload.Thread]skips
	skipped []string
}

// plan checks w against the host and opts against the bounds.
func plan(w *workload.Workload, opts *Options) (*runPlan, error) {
	p := &runPlan{skip: map[*workload.Thread]skips{}}
	var err error
	if p.allowed, err = processAffinity(); err != nil {
		return nil, err
	}
	rt, rtCPUs, err := checkBounds(w, opts)
	if err != nil {
		return nil, err
	}
	var missing []string
	miss := func(d *workload.Thread, what string, s func(*skips)) {
		missing = append(missing, fmt.Sprintf("thread %s: %s", d.Name, what))
		k := p.skip[d]
		s(&k)
		p.skip[d] = k
	}
	if len(w.Groups) > 0 {
		if err := p.findGroups(w); err != nil {
			missing = append(missing, "groups: "+err.Error())
			p.flatten = true
		}
	}
	_, maj, min := kernelRelease()
	slices12 := maj > 6 || maj == 6 && min >= 12
	probes := map[sched.Attr][]*workload.Thread{}
	for i := range w.Threads {
		d := &w.Threads[i]
		for _, c := range cpusOf(d) {
			if !c.SubsetOf(p.allowed) {
				miss(d, fmt.Sprintf("cpus %s outside the process's affinity mask %s", c, p.allowed), func(s *skips) { s.cpus = true })
				break
			}
		}
		if d.Slice > 0 && !slices12 {
			miss(d, "slice needs sched_attr.sched_runtime for fair tasks (EEVDF, Linux 6.12 and later)", func(s *skips) { s.slice = true })
		}
		if threadRT(d) {
			switch {
			case d.CPUs.IsEmpty() || d.CPUs.Intersect(p.allowed) == p.allowed:
				miss(d, "a real-time thread must be pinned to fewer CPUs than the process has, so that it cannot take every CPU", func(s *skips) { s.class = true })
			case hasOp(d.Ops, workload.SetCPUs):
				miss(d, "a real-time thread may not change its affinity", func(s *skips) { s.class = true })
			case d.Group != "" || hasOp(d.Ops, workload.SetGroup):
				miss(d, "a real-time thread may not be in a group (no real-time runtime in a new cpu group)", func(s *skips) { s.class = true })
			}
		}
		for _, a := range attrsOf(d) {
			probes[a] = append(probes[a], d)
		}
	}
	if rt && rtCPUs.Intersect(p.allowed) == p.allowed {
		missing = append(missing, "real-time threads together cover every CPU")
		p.skipRT(w)
	}
	for a, ds := range probes {
		if err := probeAttr(a); err != nil {
			for _, d := range ds {
				miss(d, err.Error(), func(s *skips) { s.class, s.nice = true, true })
			}
		}
	}
	groups := map[string]bool{}
	for _, g := range w.Groups {
		groups[g.Name] = true
	}
	missing = append(missing, checkPeers(opts.Peers, groups)...)
	slices.Sort(missing)
	missing = slices.Compact(missing)
	if len(missing) > 0 && !opts.SkipUnsupported {
		return nil, &MissingError{Missing: missing}
	}
	p.skipped = missing
	return p, nil
}

// skipRT marks every thread of w that may be real-time to run in the normal class.
func (p *runPlan) skipRT(w *workload.Workload) {
	for i := range w.Threads {
		if d := &w.Threads[i]; threadRT(d) {
			k := p.skip[d]
			k.class = true
			p.skip[d] = k
		}
	}
}

// checkBounds checks w's thread count and opts' limit and weight against the bounds (the
// limit's tighter one with real-time threads), and reports whether w may have real-time
// threads and the CPUs they are pinned to.
func checkBounds(w *workload.Workload, opts *Options) (rt bool, rtCPUs topology.CPUSet, err error) {
	n := 0
	for i := range w.Threads {
		d := &w.Threads[i]
		n += d.Instances()
		if threadRT(d) {
			rt = true
			rtCPUs = rtCPUs.Union(d.CPUs)
		}
	}
	if n > MaxThreads {
		return false, rtCPUs, limitErr("%d threads, more than %d", n, MaxThreads)
	}
	limit := opts.limit()
	switch {
	case limit < 0:
		return false, rtCPUs, limitErr("negative limit %v", limit)
	case limit > MaxLimit:
		return false, rtCPUs, limitErr("limit %v above %v", limit, MaxLimit)
	case opts.Weight > sched.MaxWeight:
		return false, rtCPUs, limitErr("weight %d above %d", opts.Weight, sched.MaxWeight)
	case rt && limit > MaxRTLimit:
		return false, rtCPUs, limitErr("limit %v above %v with real-time threads", limit, MaxRTLimit)
	}
	return rt, rtCPUs, nil
}

// findGroups finds the cpu controller w's groups need (with cpu.idle if one of them is idle)
// and checks that this process may create groups under it.
func (p *runPlan) findGroups(w *workload.Workload) error {
	var err error
	if p.ctl, err = findController(); err != nil {
		return err
	}
	if slices.ContainsFunc(w.Groups, func(g workload.Group) bool { return g.Idle }) {
		if _, e := os.Stat(filepath.Join(p.ctl.dir, "cpu.idle")); e != nil {
			return fmt.Errorf("the cpu controller has no cpu.idle (Linux 5.15 and later)")
		}
	}
	return probeGroupPermission(p.ctl)
}

// threadRT reports whether d's threads may be real-time: by declaration or by a class op.
func threadRT(d *workload.Thread) bool {
	if d.Class.RealTime() {
		return true
	}
	rt := false
	walkOps(d.Ops, func(op *workload.Op) {
		if op.Kind == workload.SetClass && op.Class.RealTime() {
			rt = true
		}
	})
	return rt
}

func hasOp(ops []workload.Op, k workload.Kind) bool {
	found := false
	walkOps(ops, func(op *workload.Op) { found = found || op.Kind == k })
	return found
}

func walkOps(ops []workload.Op, f func(*workload.Op)) {
	for i := range ops {
		f(&ops[i])
		walkOps(ops[i].Body, f)
	}
}

// cpusOf returns the affinities d declares and sets.
func cpusOf(d *workload.Thread) []topology.CPUSet {
	out := []topology.CPUSet{d.CPUs}
	walkOps(d.Ops, func(op *workload.Op) {
		if op.Kind == workload.SetCPUs {
			out = append(out, op.CPUs)
		}
	})
	return out
}

// attrsOf returns the class, nice, real-time priority and slice combinations d's threads take.
func attrsOf(d *workload.Thread) []sched.Attr {
	base := sched.Attr{Class: d.Class, Nice: d.Nice, RTPrio: d.RTPrio, Slice: int64(d.Slice)}
	out := []sched.Attr{base}
	walkOps(d.Ops, func(op *workload.Op) {
		switch op.Kind {
		case workload.Nice:
			a := base
			a.Nice = op.N
			out = append(out, a)
		case workload.SetClass:
			a := base
			a.Class, a.RTPrio = op.Class, op.N
			out = append(out, a)
		}
	})
	return out
}

// probeAttr tries a on a thread of its own, which ends with the probe, and reports why the
// kernel refused it. This thread sets it, and then puts back the class the probe thread had: a
// thread that set SCHED_IDLE (or nice 19) on itself may, on a busy CPU, wait seconds for the
// CPU to report the result with (the probe then failed as "did not return"), and would then
// keep its P meanwhile.
func probeAttr(a sched.Attr) error {
	if a == (sched.Attr{}) {
		return nil
	}
	if a.Class.RealTime() {
		a.Slice = 0
	}
	tidc := make(chan int, 1)
	end := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		tidc <- unix.Gettid()
		<-end
	}()
	tid := <-tidc
	defer close(end)
	orig, err := saveAttrs(tid)
	if err != nil {
		return err
	}
	if err := setClass(tid, a); err != nil {
		return err
	}
	// Best effort: a process without CAP_SYS_NICE may not raise the priority back, and the
	// thread then ends with a, as it would have.
	_ = orig.restore(tid)
	return nil
}

// probeGroupPermission reports whether this process can create groups under the controller.
func probeGroupPermission(ctl controller) error {
	if err := unixAccess(ctl.dir); err != nil {
		return fmt.Errorf("cannot create groups in %s: %w", ctl.dir, err)
	}
	return nil
}
