package scenario_test

import (
	"fmt"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
)

// buildkernelWorkload builds seed000-buildkernel's workload at its defaults with set applied.
func buildkernelWorkload(t *testing.T, s *scenario.Scenario, set scenario.Values) *workload.Workload {
	t.Helper()
	v := s.Defaults()
	for k, x := range set {
		v[k] = x
	}
	setup, err := s.Build(v, &s.Rows[0])
	require.NoError(t, err)
	require.NoError(t, setup.Workload.Validate())
	return setup.Workload
}

// The per-object chain is three processes an object (sh, the compiler, ctfconvert), forked by
// one make that hears of each job's end on a pipe and wakes for each command the shell echoes; the earlier model (chain 0, one_make 0) is
// one process per object in j slots.
func TestBuildkernelChain(t *testing.T) {
	s, err := scenario.Lookup("seed000-buildkernel")
	require.NoError(t, err)
	small := scenario.Values{"jobs": 20, "hogs": 2, "modules": 0}
	w := buildkernelWorkload(t, s, small)
	n, exact := w.Started()
	assert.True(t, exact)
	assert.Equal(t, 1+2+3*20, n, "make, the hogs, and sh, cc and ctfconvert per object")
	require.Len(t, w.Pipes, 3, "reaped, make's poll, and the pipe by which a vforked shell's exec wakes make")
	kinds := func(w *workload.Workload, name string) []workload.Kind {
		var out []workload.Kind
		for i := range w.Threads {
			if w.Threads[i].Name == name {
				for _, op := range w.Threads[i].Ops {
					out = append(out, op.Kind)
				}
				return out
			}
		}
		t.Fatalf("no thread %s", name)
		return nil
	}
	// The shell's exec wakes its vfork parent, it echoes each command into make's pipe before
	// it forks it, and its exit both posts the job to reap and wakes make's poll.
	R, S, F, J := workload.Run, workload.Send, workload.Fork, workload.Join
	assert.Equal(t, []workload.Kind{S, R, S, F, J, R, S, F, J, S, S}, kinds(w, "sh"))
	mk := w.Threads[len(w.Threads)-3] // make, then the two hogs
	require.Equal(t, "make", mk.Name)
	reap := mk.Ops[1].Body[0]
	assert.Equal(t, workload.Until, reap.Kind)
	assert.Equal(t, "reaped", reap.Name)
	assert.Equal(t, workload.Recv, reap.Body[0].Kind)
	assert.Equal(t, "make", reap.Body[0].Name)

	// Without echo, make sleeps only for the jobs' exits, on one pipe.
	we := buildkernelWorkload(t, s, scenario.Values{"jobs": 20, "hogs": 2, "echo": 0, "modules": 0})
	require.Len(t, we.Pipes, 2)
	assert.Equal(t, []workload.Kind{S, R, F, J, R, F, J, S}, kinds(we, "sh"))

	old := scenario.Values{"jobs": 20, "hogs": 2, "chain": 0, "one_make": 0, "modules": 0}
	w0 := buildkernelWorkload(t, s, old)
	n, _ = w0.Started()
	assert.Equal(t, 8+2+20, n, "j make slots, the hogs, one process per object")
	assert.Empty(t, w0.Pipes)
}

// seed002-idle builds one process per job (the earlier model's gcc tree) under one make that
// wakes for each job's echo and exit, so that make is woken from the CPUs its jobs ran on.
func TestSeed002OneMake(t *testing.T) {
	s, err := scenario.Lookup("seed002-idle")
	require.NoError(t, err)
	w := buildkernelWorkload(t, s, scenario.Values{"jobs": 20})
	n, exact := w.Started()
	assert.True(t, exact)
	assert.Equal(t, 1+20, n, "make and one process per object")
	require.Len(t, w.Pipes, 2)
	cc := w.Threads[0]
	require.Equal(t, "cc", cc.Name)
	assert.Equal(t, workload.Send, cc.Ops[0].Kind, "the shell's echo of the command")
	assert.Equal(t, "make", cc.Ops[0].Name)
	assert.Equal(t, workload.Send, cc.Ops[len(cc.Ops)-1].Kind)
}

// With submakes, each make forks its own copy of the job shell, which reports to that make's
// pipes; the objects and the j jobs are split between the makes; every job a make reaps while
// it has others running writes a token back, which wakes each other make's poll once; the last
// job a make reaps returns its own token and wakes no one; a make keeping one job never holds a
// token. Bad combinations are errors.
func TestBuildkernelSubmakes(t *testing.T) {
	s, err := scenario.Lookup("seed000-buildkernel")
	require.NoError(t, err)
	thread := func(w *workload.Workload, name string) *workload.Thread {
		for i := range w.Threads {
			if w.Threads[i].Name == name {
				return &w.Threads[i]
			}
		}
		t.Fatalf("no thread %s", name)
		return nil
	}
	// sends counts the messages a make sends into pipe over its whole script.
	var sends func(ops []workload.Op, pipe string) int
	sends = func(ops []workload.Op, pipe string) int {
		n := 0
		for _, op := range ops {
			switch {
			case op.Kind == workload.Send && op.Name == pipe:
				n += max(op.N, 1)
			case op.Kind == workload.Repeat:
				n += op.N * sends(op.Body, pipe)
			}
		}
		return n
	}
	forks := func(ops []workload.Op) int {
		n := 0
		for _, op := range ops {
			if op.Kind == workload.Repeat {
				for _, b := range op.Body {
					if b.Kind == workload.Fork {
						n += op.N
					}
				}
			}
		}
		return n
	}
	for _, tc := range []struct {
		submakes, j, jobs int
		jobsOf            []int // objects per make
		wakes             int   // messages make0 sends each other make
	}{
		{submakes: 2, j: 8, jobs: 21, jobsOf: []int{11, 10}, wakes: 10}, // 11 jobs reaped, the last wakes no one
		{submakes: 3, j: 8, jobs: 20, jobsOf: []int{7, 7, 6}, wakes: 6},
		{submakes: 8, j: 8, jobs: 20, jobsOf: []int{3, 3, 3, 3, 2, 2, 2, 2}, wakes: 0}, // one job each: no tokens
	} {
		w := buildkernelWorkload(t, s, scenario.Values{"jobs": float64(tc.jobs), "j": float64(tc.j), "submakes": float64(tc.submakes), "modules": 0})
		require.Len(t, w.Pipes, 3*tc.submakes, "reaped, poll and exec per make")
		total := 0
		for i, want := range tc.jobsOf {
			mk := thread(w, fmt.Sprintf("make%d", i))
			assert.Equal(t, want, forks(mk.Ops), "make%d's objects", i)
			total += forks(mk.Ops)
			sh := thread(w, fmt.Sprintf("sh%d", i))
			assert.True(t, sh.Template)
			assert.Equal(t, 3, sends(sh.Ops, fmt.Sprintf("make%d", i)), "two echoes and the exit into its own make's poll")
			assert.Equal(t, 1, sends(sh.Ops, fmt.Sprintf("reaped%d", i)))
			assert.Equal(t, 1, sends(sh.Ops, fmt.Sprintf("exec%d", i)), "the exec wakes its own make")
			for k := range tc.submakes {
				if k != i {
					assert.Zero(t, sends(sh.Ops, fmt.Sprintf("make%d", k)), "a job wakes only its own make")
				}
			}
		}
		assert.Equal(t, tc.jobs, total)
		mk0 := thread(w, "make0")
		assert.Equal(t, tc.wakes, sends(mk0.Ops, "make1"), "submakes %d", tc.submakes)
		assert.Zero(t, sends(mk0.Ops, "make0"))
	}
	for _, bad := range []scenario.Values{{"submakes": 9, "modules": 0}, {"submakes": 2, "echo": 0, "modules": 0}, {"submakes": 2, "one_make": 0, "modules": 0}} {
		v := s.Defaults()
		for k, x := range bad {
			v[k] = x
		}
		_, err := s.Build(v, &s.Rows[0])
		assert.Error(t, err, "%v", bad)
	}
}

// bmake starts each job shell with vfork(2) and the kernel keeps the parent asleep until the
// child has exec'd (kern_fork.c fork_rfppwait, kern_exec.c do_execve): make forks the next
// shell only after the last one has run. Without vfork make forks its first j shells at one
// instant, before any of them has run.
func TestBuildkernelVfork(t *testing.T) {
	s, err := scenario.Lookup("seed000-buildkernel")
	require.NoError(t, err)
	small := scenario.Values{"jobs": 6, "j": 2, "cpus": 2, "hogs": 2, "modules": 0}
	w := buildkernelWorkload(t, s, small)
	mk := w.Threads[len(w.Threads)-3]
	require.Equal(t, "make", mk.Name)
	start := mk.Ops[0].Body
	require.Len(t, start, 3, "make's CPU, the fork, the wait for the exec")
	assert.Equal(t, workload.Fork, start[1].Kind)
	assert.Equal(t, workload.Recv, start[2].Kind)
	assert.Equal(t, "exec", start[2].Name)

	// forkedBeforeRun counts the shells make forked while an earlier shell had not yet run.
	forkedBeforeRun := func(vfork float64) int {
		v := scenario.Values{"vfork": vfork}
		for k, x := range small {
			v[k] = x
		}
		r, _ := runScenario(t, "seed000-buildkernel", "ule:legacy", v, sim.TraceFull)
		ran := map[sched.ID]bool{}
		var waiting []sched.ID // shells forked and not yet run
		n, shells := 0, 0
		for _, rec := range r.Trace.Records {
			switch {
			case rec.Kind == sim.KindSwitch && rec.Thread >= 0:
				ran[rec.Thread] = true
			case rec.Kind == sim.KindFork && r.Threads[rec.Thread].Decl == "sh":
				shells++
				for _, id := range waiting {
					if !ran[id] {
						n++
						break
					}
				}
				waiting = append(waiting, rec.Thread)
			}
		}
		require.Equal(t, 6, shells)
		return n
	}
	assert.Zero(t, forkedBeforeRun(1), "vfork: make waits for each shell's exec")
	assert.Positive(t, forkedBeforeRun(0), "fork: make goes on before the shell runs")
}

// With modules, each module's make runs kmod.mk's steps one after another: 2 include links
// (sh, realpath, ln), mod_hdrs headers (sh, ln or awk), genoffset.o (sh, cc), offset.inc (sh,
// sh genoffset.sh, nm, awk), .depend (sh), mod_objs objects (sh, cc, ctfconvert), the .ko.full
// link (sh, ld, ctfmerge, awk, xargs, objcopy), the .ko.debug and the .ko (sh, objcopy each).
func TestBuildkernelModules(t *testing.T) {
	v := scenario.Values{"jobs": 40, "j": 4, "cpus": 4, "modules": 6, "mod_lanes": 3, "mod_objs": 2, "mod_hdrs": 4}
	r, setup := runScenario(t, "seed000-buildkernel", "ule:legacy", v, sim.TraceFull)
	require.NoError(t, setup.Workload.Validate())
	byDecl := map[string]int{}
	for i := range r.Threads {
		require.GreaterOrEqual(t, r.Threads[i].End, int64(0), "%s exits", r.Threads[i].Name)
		d := r.Threads[i].Decl
		if n := len(d); n > 2 && d[n-2] == 'm' { // a module lane's template, its lane's digit cut
			d = d[:n-1]
		}
		byDecl[d]++
	}
	perModule := 1 + 2*3 + 4*2 + 2 + 4 + 1 + 2*3 + 6 + 2 + 2 // the module's make, then its steps
	assert.Equal(t, 1+40*3+3+6*perModule, len(r.Threads), "the kernel's make and objects, the lanes, the modules")
	assert.Equal(t, 6, byDecl["mkm"], "one make a module")
	for kind, n := range map[string]int{"ilinkm": 2, "genm": 4, "genoffsetm": 1, "offsetm": 1, "dependm": 1, "objm": 2, "fullm": 1, "debugm": 1, "kom": 1} {
		assert.Equal(t, 6*n, byDecl[kind], kind)
	}

	// The -j token pipe: the job shells running at once, the kernel's and the modules', never
	// exceed j; without the pipe (each make keeping its own jobs) they would.
	shell := func(id sched.ID) bool {
		d := r.Threads[id].Decl
		return d == "sh" || len(d) > 2 && d[len(d)-2] == 'm' && d[:2] != "mk"
	}
	running, most := 0, 0
	for _, rec := range r.Trace.Records {
		if rec.Thread < 0 || !shell(rec.Thread) {
			continue
		}
		switch rec.Kind {
		case sim.KindFork:
			running++
			most = max(most, running)
		case sim.KindExit:
			running--
		}
	}
	assert.LessOrEqual(t, most, 4, "job shells at once")
	assert.GreaterOrEqual(t, most, 3)

	s, err := scenario.Lookup("seed000-buildkernel")
	require.NoError(t, err)
	for _, bad := range []scenario.Values{{"submakes": 2}, {"chain": 0}, {"one_make": 0}, {"mod_lanes": 9}, {"j": 1, "mod_lanes": 1}} {
		v := s.Defaults()
		for k, x := range bad {
			v[k] = x
		}
		_, err := s.Build(v, &s.Rows[0])
		assert.ErrorContains(t, err, "mod", "%v", bad)
	}
}
