// This file models buildkernel's modules: the sub-makes sys/modules runs beside the kernel's own.

package scenario

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// modStep is one target of a module's make (sys/conf/kmod.mk, FreeBSD 14): a job shell that
// runs the programs children in a row, n times in the module.
type modStep struct {
	kind     string
	children []string
	n        int
}

// moduleSteps returns a module's targets in the order its make reaches them when it holds one
// token (sys/conf/kmod.mk and share/mk/bsd.dep.mk of FreeBSD 14): beforebuild first (the
// _ILINKS machine and x86, each a shell running realpath and ln -fns; the generated headers of
// SRCS, one program each: ln -sf for an opt_*.h, awk makeobjops.awk for an *_if.h, awk
// vnode_if.awk; genoffset.o, a compile, and offset.inc, sh genoffset.sh running nm and awk,
// which MODULE_TIED adds to DPSRCS; .depend, ": > .depend", a shell and no program), then all
// behind bsd.init.mk's .WAIT: the objects (the compiler then ctfconvert, as the kernel's), the
// ${KMOD}.ko.full link (ld -r, ctfmerge, awk kmod_syms.awk piped into xargs objcopy), the
// .ko.debug (objcopy --only-keep-debug) and the .ko (objcopy --strip-debug), which DEBUG_FLAGS
// makes one after another.
func moduleSteps(v Values) []modStep {
	return []modStep{
		{"ilink", []string{"prog", "prog"}, 2},
		{"gen", []string{"prog"}, int(v["mod_hdrs"])},
		{"genoffset", []string{"cc"}, 1},
		{"offset", []string{"prog", "prog", "prog"}, 1},
		{"depend", nil, 1},
		{"obj", []string{"cc", "ctfconvert"}, int(v["mod_objs"])},
		{"full", []string{"prog", "prog", "prog", "prog", "prog"}, 1},
		{"debug", []string{"prog"}, 1},
		{"ko", []string{"prog"}, 1},
	}
}

// moduleParams are the parameters of buildkernel's modules (moduleThreads); step is step_ms's
// default, a program's start and exit as calibrated.
func moduleParams(step float64) []Param {
	return []Param{
		{Name: "modules", Doc: "module makes beside the kernel's (sys/conf/kern.post.mk modules-all; sys/modules/Makefile of FreeBSD 14 lists about 380 directories for amd64, swept in the notes; fewer by default for the summary's time; 0: the kernel's objects alone)", Default: 120, Min: 0, Max: 1e5, Integer: true},
		{Name: "mod_lanes", Doc: "module makes the sys/modules make runs at most at once (SUBDIR_PARALLEL, no SUBDIR_DEPEND: as many as it gets tokens, up to j)", Default: 8, Min: 1, Max: 1024, Integer: true},
		{Name: "mod_objs", Doc: "objects of a module (the median of 8 module Makefiles read: 2)", Default: 2, Min: 0, Max: 1e4, Integer: true},
		{Name: "mod_hdrs", Doc: "generated headers of a module, one job each (opt_*.h links, *_if.h, vnode_if*.h; the median of the 8 read: 4)", Default: 4, Min: 0, Max: 1e4, Integer: true},
		{Name: "step_ms", Doc: "CPU of each short program of a module's steps (ln, awk, nm, ld -r, ctfmerge, objcopy; not known: a program's start and exit, as ctf_ms)", Unit: "ms", Default: step, Min: 0, Max: 1e4},
	}
}

// moduleStarts returns the job starts of one module's make (moduleSteps).
func moduleStarts(v Values) int {
	n := 0
	for _, s := range moduleSteps(v) {
		n += s.n
	}
	return n
}

// moduleThreads adds to w the modules' part of the build and returns its threads: mod_lanes
// lanes of the sys/modules make (SUBDIR_PARALLEL, share/mk/bsd.subdir.mk: each subdirectory a
// job "cd dir; ${MAKE} all" with no order between them, so as many run as the make holds
// tokens), each forking the next module's make whenever it has a token (lane 0 needs none). A module's make
// holds the one job it runs without a token and runs its steps in a row through the job loop
// of makePipes (make_ms, the vfork wait, the echoes and the reap).
func moduleThreads(v Values, w *workload.Workload) []workload.Thread {
	lanes, mods := int(v["mod_lanes"]), int(v["modules"])
	w.Threads = append(w.Threads, workload.Thread{Name: "prog", Template: true,
		Ops: []workload.Op{workload.RunOp(workload.Fixed(workload.Duration(max(1, v["step_ms"]*1e6))))}})
	w.Pipes = append(w.Pipes, workload.Pipe{Name: "subdirs"})
	var out []workload.Thread
	for s := range min(lanes, mods) {
		suffix := "m" + strconv.Itoa(s)
		mk := moduleMake(v, w, suffix)
		// The lane starts the module's make as make starts a job shell: vfork, then wait for the exec.
		lane := append(vforkOps(v, w, mk, "x"+suffix), workload.Op{Kind: workload.Join})
		run := workload.RunOp(workload.Fixed(workload.Duration(max(1, v["make_ms"]*1e6))))
		// A lane claims the next subdirectory (one message on "subdirs") before it waits for a
		// token, so that no more than mods are built; the until takes the mods messages when
		// the lane sees them all claimed, and the lane puts them back for the others.
		body := slices.Concat([]workload.Op{workload.SendOp("subdirs", 1), run}, lane)
		if s > 0 { // lane 0 runs on the modules-all job's own token
			body = slices.Concat([]workload.Op{workload.SendOp("subdirs", 1), workload.RecvOp("tokens", 1), run}, lane,
				[]workload.Op{workload.SendOp("tokens", 1)})
		}
		out = append(out, workload.Thread{Name: "modules" + strconv.Itoa(s), Ops: []workload.Op{
			workload.UntilOp("subdirs", mods, body...), workload.SendOp("subdirs", mods)}})
	}
	return out
}

// tokenMake returns the kernel's make when the modules build beside it, sharing the -j token
// pipe "tokens" with the modules' make (contrib/bmake job.c). Its job without a token is
// modules-all; for its objects it reads tokens (Job_TokenWithdraw) and, reaping one, writes
// the token back (Job_TokenReturn) and, in the same MakeStartJobs, reads it again at once for
// its next object: another make, woken by the write from its poll, finds the pipe empty. So
// it keeps j − 1 tokens while it has objects to start, and gives them up one by one as it
// reaps its last: then, and for the tokens it never needed, the module makes get them.
func tokenMake(v Values, w *workload.Workload, first string, j, jobs int) workload.Thread {
	w.Pipes = append(w.Pipes, workload.Pipe{Name: "tokens"})
	start, reap, _ := makePipes(v, w, first, "", nil, j)
	held := min(j-1, jobs)
	var ops []workload.Op
	if free := j - 1 - held; free > 0 {
		ops = append(ops, workload.SendOp("tokens", free))
	}
	ops = append(ops, workload.RepeatOp(held, start...))
	if jobs > held {
		ops = append(ops, workload.RepeatOp(jobs-held, slices.Concat(reap, start)...))
	}
	ops = append(ops, workload.RepeatOp(held, append(slices.Clone(reap), workload.SendOp("tokens", 1))...), workload.Op{Kind: workload.Join})
	return workload.Thread{Name: "make", Ops: ops}
}

// moduleMake adds to w the templates of a module's make for lane suffix (the make, last, and
// one job shell per step kind) and returns the make's name.
func moduleMake(v Values, w *workload.Workload, suffix string) string {
	echo := v["echo"] == 1
	var ops []workload.Op
	for _, st := range moduleSteps(v) {
		if st.n == 0 {
			continue
		}
		name := st.kind + suffix
		w.Threads = append(w.Threads, workload.Thread{Name: name, Template: true, Ops: stepShell(v, st, suffix, echo)})
		start, reap, _ := makePipes(v, w, name, suffix, nil, 1)
		ops = append(ops, workload.RepeatOp(st.n, append(start, reap...)...))
	}
	// makePipes added the make's pipes once per step: keep one of each.
	w.Pipes = uniquePipes(w.Pipes)
	mk := "mk" + suffix
	w.Threads = append(w.Threads, workload.Thread{Name: mk, Template: true, Ops: ops})
	return mk
}

// stepShell returns the ops of a step's job shell: for each program, half of sh_ms of its own
// CPU (reading the command), the command's echo into make's poll pipe (echo), the fork and the
// wait; a step without programs (": > .depend") runs and echoes once.
func stepShell(v Values, st modStep, suffix string, echo bool) []workload.Op {
	sh := workload.RunOp(workload.Fixed(workload.Duration(max(1, v["sh_ms"]*1e6/2))))
	var ops []workload.Op
	say := func() {
		if echo {
			ops = append(ops, workload.SendOp("make"+suffix, 1))
		}
	}
	if len(st.children) == 0 {
		ops = append(ops, sh)
		say()
	}
	for _, c := range st.children {
		ops = append(ops, sh)
		say()
		ops = append(ops, workload.ForkOp(c, 1), workload.Op{Kind: workload.Join})
	}
	return ops
}

// uniquePipes returns pipes without repeated names, the first of each kept.
func uniquePipes(pipes []workload.Pipe) []workload.Pipe {
	seen := map[string]bool{}
	var out []workload.Pipe
	for _, p := range pipes {
		if !seen[p.Name] {
			seen[p.Name] = true
			out = append(out, p)
		}
	}
	return out
}

// checkModules reports whether the modules' parameters fit the rest.
func checkModules(v Values) error {
	if v["modules"] == 0 {
		return nil
	}
	if v["chain"] != 1 || v["one_make"] != 1 || v["submakes"] != 1 {
		return fmt.Errorf("modules %g needs chain 1, one_make 1 and submakes 1", v["modules"])
	}
	if l := v["mod_lanes"]; l > v["j"] || v["j"] < 2 {
		return fmt.Errorf("mod_lanes %g needs j of at least 2 and at least mod_lanes (j %g)", l, v["j"])
	}
	return nil
}

// buildkernelModulesNotes are the notes on the modules' part of buildkernel: the sources read,
// what is modelled and what it gives.
func buildkernelModulesNotes() []string {
	return []string{
		"Sources read for the modules (sobomax/freebsd14_vendor 0f7ff342, a FreeBSD 14-CURRENT tree whose " +
			"sys/modules/Makefile still lists cloudabi, so somewhat before the 2023 release; share/mk/bsd.subdir.mk " +
			"freebsd/freebsd-src 023fc80e, share/mk/bsd.dep.mk 0023a0b2): sys/conf/kern.post.mk makes all depend on " +
			"kernel-all and modules-all, both after beforebuild (kernel-depend), and modules-all runs \"cd $S/modules; " +
			"${MKMODULESENV} ${MAKE} all\" with MODULE_TIED=yes and DEBUG_FLAGS from DEBUG; after its objects the " +
			"kernel's make links (${SYSTEM_LD}, ctfmerge, objcopy, then kernel.debug and kernel: not modelled). " +
			"sys/modules/Makefile sets SUBDIR_PARALLEL and lists, for amd64 with the default options, about 380 " +
			"directories (200 always, 167 of the 187 ${_x} set on amd64, 13 appended: dtrace, opensolaris, zfs, linux…), " +
			"some of them (geom, netgraph, sound, usb…) with subdirectories of their own. bsd.subdir.mk: with " +
			"SUBDIR_PARALLEL each directory's all_subdir_ target depends only on its SUBDIR_DEPEND_ entries (none " +
			"here), and runs \"cd dir; ${MAKE} all\" as one job, so the sys/modules make starts a module's make " +
			"whenever it holds a token, up to j at once.",
		"Per module (sys/conf/kmod.mk, bsd.dep.mk, bsd.init.mk's \"all: beforebuild .WAIT\"): beforebuild makes the " +
			"_ILINKS machine and x86 (one shell each: realpath, ln -fns), each generated header of SRCS (ln -sf for an " +
			"opt_*.h, awk makeobjops.awk for an *_if.h, awk vnode_if.awk three times for vnode_if.h), genoffset.o (cc) " +
			"and offset.inc (sh genoffset.sh: nm, awk; DPSRCS with MODULE_TIED) and .depend (\": > .depend\" after all " +
			"DPSRCS); then the objects (cc, ctfconvert), ${KMOD}.ko.full (ld -r, ctfmerge, awk kmod_syms.awk | xargs " +
			"objcopy), ${KMOD}.ko.debug (objcopy --only-keep-debug) and ${KMOD}.ko (objcopy --strip-debug), one after " +
			"another. Eight module Makefiles read (if_vlan, em, tmpfs, ahci, mac_none, accf_data, ale, nullfs) have 1, 19, " +
			"4, 3, 1, 1, 1, 3 objects and 5, 8, 4, 4, 3, 0, 4, 3 generated headers: medians 2 and 4 (mod_objs, " +
			"mod_hdrs). So a module is 14 job starts (2 links, 4 headers, genoffset, offset.inc, .depend, 2 objects, 3 " +
			"link steps) and its make's own, 15 vfork waits; 380 modules are about 5,700.",
		"Modelled (modules N, mod_lanes L): the kernel's make and L lanes of the sys/modules make share the -j token " +
			"pipe. The kernel's make runs modules-all as its job without a token and reads a token for each object; it " +
			"writes a token back only as it reaps its last j − 1 objects, because in bmake the make that writes a token " +
			"back reads it again in the same MakeStartJobs while it has a job to start (the others, woken in poll, find " +
			"the pipe empty). So while the kernel's objects last, one module's make runs (lane 0, on modules-all's " +
			"token); then up to L. Each module's make runs its steps one at a time, on its own job: it would read " +
			"tokens for its headers and objects side by side, but the sys/modules make wants the same tokens for " +
			"further modules; who wins is the token race, left out. Not modelled: the kernel's link steps, a make's " +
			"parse of its makefiles, and the subdirectories' own makes (geom, usb…). The default is 120 modules to " +
			"keep the summary's time (the scenario alone 7.7 s → 11.0 s; 380 modules: about 17 s); 380 and 760 are " +
			"swept below.",
		"What the modules give (schedbench sweep seed000-buildkernel -grid job_ms=31.61432,500 -grid " +
			"modules=0,380,760 -reps 3; stock ULE beside nice 20 hogs): at the calibrated 31.6 ms jobs 11.08 / 7.66 / " +
			"6.21×; at 500 ms 1.52 / 1.69 / 1.72×. The patch: 11.46 / 11.14 / 11.18× and 1.51 / 1.87 / 2.04×. Without " +
			"hogs stock ULE over 4BSD stays 1.0021 / 1.0024 / 1.0019× at 31.6 ms and 1.0002× at 500 ms; the patch " +
			"1.0021 / 1.0025 / 1.0026× and 1.0002 / 1.0002 / 1.0003×. At 380 modules: job_ms 50 / 100 / 200 give 5.64 " +
			"/ 3.11 / 1.93×; at 500 ms step_ms 1.276 → 20 gives 1.69 → 1.77×, mod_objs 2 → 6 1.69 → 1.63× (1.70× at " +
			"step_ms 20), mod_lanes 8 → 1 (the modules in a row) 1.69 → 2.19× (13.14× at 31.6 ms). Why the modules do " +
			"not bring the hour: a module's 15 starts in a row cost about 15 × 55 ms = 0.8 s beside the hogs, against " +
			"its 3 compiles' CPU, 1.5 s at 500 ms, so a module is slowed less than 2×; and 8 module makes start their " +
			"jobs side by side, where the kernel's objects all go through one make. Even in a row (mod_lanes 1) 5,700 " +
			"starts at 55 ms are about 5 minutes, not the 50 the seed's hour needs.",
	}
}
