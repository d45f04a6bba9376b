package cfs

// This file takes read-only snapshots of the fair class's state for the course: the picture a
// student draws of each CPU's cfs_rq, its entities on a vruntime axis with their deadlines, the
// average vruntime and which entities are eligible.

// A State is a read-only snapshot of a [Scheduler]: each CPU's root cfs_rq. It is plain data, so
// it marshals to JSON as it is; its JSON shape is stable (`schedbench explain -state` reads it).
// Taking a State only reads the Scheduler: no decision changes when one is taken. Group queues
// below the root are shown by their group entities only.
type State struct {
	// Version is the kernel generation: "v6.5" (CFS), "v6.6", "v6.18" or "v7.1" (EEVDF).
	Version string `json:"version"`
	// CPUs are the CPUs in id order.
	CPUs []RQInfo `json:"cpus"`
}

// An RQInfo is one CPU's root cfs_rq in a [State].
type RQInfo struct {
	// CPU is the run queue's CPU.
	CPU int `json:"cpu"`
	// Running names rq->curr's entity, or is "" when the CPU idles.
	Running string `json:"running"`
	// NrRunning is cfs_rq->nr_running (h_nr_running for the whole hierarchy is HNrRunning);
	// Load cfs_rq->load.weight.
	NrRunning  int    `json:"nr_running"`
	HNrRunning int    `json:"h_nr_running"`
	Load       uint64 `json:"load"`
	// MinVruntime is cfs_rq->min_vruntime (v6.5, v6.6) or cfs_rq->zero_vruntime (v7.1): the
	// reference point the tree's keys are relative to.
	MinVruntime uint64 `json:"min_vruntime"`
	// AvgVruntime is avg_vruntime(cfs_rq), V, EEVDF only (0 in v6.5): the weighted average of
	// the queued entities' vruntimes, the running one included; an entity is eligible when its
	// vruntime is at most V.
	AvgVruntime uint64 `json:"avg_vruntime"`
	// Entities are the running entity, if it is still queued, then the tree in order (leftmost
	// first).
	Entities []EntityInfo `json:"entities"`
}

// An EntityInfo is one sched_entity of an [RQInfo].
type EntityInfo struct {
	// Name names the entity (a task "t3", a group's entity by its group).
	Name string `json:"name"`
	// Running reports that it is the queue's curr (off the tree while it runs).
	Running bool `json:"running"`
	// Vruntime, Deadline and Slice are se->vruntime, se->deadline and se->slice.
	Vruntime uint64 `json:"vruntime"`
	Deadline uint64 `json:"deadline"`
	Slice    uint64 `json:"slice"`
	// Weight is se->load.weight; Nice the task's nice value.
	Weight uint64 `json:"weight"`
	Nice   int    `json:"nice"`
	// Lag is V − vruntime (EEVDF; 0 in v6.5): positive means the entity is owed service.
	Lag int64 `json:"lag"`
	// Eligible is entity_eligible (EEVDF; true in v6.5, which has no eligibility).
	Eligible bool `json:"eligible"`
}

// Snapshot returns the [State] of s. It allocates the State, so it belongs beside a decision,
// never inside one. Snapshot panics, with a message starting "cfs:", before Start.
func (s *Scheduler) Snapshot() State {
	s.mustStarted("Snapshot")
	v := s.sys.Params().Version
	st := State{Version: v.String()}
	for c := range s.sys.topo.CPUs().All() {
		rq := s.sys.RunQueue(c)
		q := rq.Root()
		ri := RQInfo{CPU: int(c), NrRunning: q.NrRunning(), HNrRunning: q.HNrRunning(), Load: q.Load().Weight,
			MinVruntime: q.MinVruntime()}
		if e := rq.Curr(); e != nil {
			ri.Running = e.Name
		}
		eevdf := v != V65
		if eevdf {
			ri.AvgVruntime = AvgVruntime(q.Sums())
		}
		add := func(e *Entity, running bool) {
			ei := EntityInfo{Name: e.Name, Running: running, Vruntime: e.Vruntime, Deadline: e.Deadline, Slice: e.Slice,
				Weight: e.load.Weight, Nice: e.nice, Eligible: true}
			if eevdf {
				ei.Lag = int64(ri.AvgVruntime - e.Vruntime)
				ei.Eligible = entityEligible(q, e)
			}
			ri.Entities = append(ri.Entities, ei)
		}
		if e := q.currQueued(); e != nil {
			add(e, true)
		}
		for e := range (&q.timeline).All() {
			add(e, false)
		}
		st.CPUs = append(st.CPUs, ri)
	}
	return st
}
