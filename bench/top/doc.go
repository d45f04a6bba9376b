// Package top shows a simulated run as top(1) shows a running system: a screen of thread
// lines at intervals of simulated time, with the columns computed as the real tools compute
// them from what the kernel exports.
//
// Kargl found seed 001's bug by reading top's PRI, WCPU and CPU columns while his jobs ran
// ("the high PRI jobs are pinned to a cpu … the low PRI jobs ping-pong"); a [Watcher] lets a
// user read a simulated run the same way.
//
// Under ULE and 4BSD a screen has FreeBSD's top -H columns (usr.bin/top/machine.c, its
// smp_Proc_format) that the model has:
//
//	THR    the thread                          (ki_tdname)
//	PRI    td_priority less PZERO              (ki_pri.pri_level - PZERO; PZERO = PRI_MIN_KERN+20)
//	NICE   nice, or r/i and the class level   (format_nice: ki_nice; rtprio for real-time and idle)
//	STATE  CPUn running, RUN queued, sleep     (ki_stat and ki_oncpu; the model names no wait channel)
//	C      the CPU it runs on or last ran on   (ki_oncpu, else ki_lastcpu)
//	TIME   its CPU time, minutes:seconds       (ki_runtime)
//	WCPU   weighted_cpu(pct, swtime)           (pct / (1 - exp(swtime * log(kern.ccpu))))
//	CPU    sched_pctcpu as a percentage        (pctdouble(ki_pctcpu))
//
// kern.ccpu is 4BSD's exp(-1/20) in FSCALE fixed point, 1948/2048; ULE exports 0 ("all cpu
// percentages from ULE are weighted"), so its WCPU is its CPU. ULE's %CPU is its own estimate
// (ts_ticks over the last ten seconds' window, sched_pctcpu), 4BSD's the decayed td_pctcpu.
//
// Under CFS and EEVDF a screen has procps' top -H columns:
//
//	COMMAND  the thread
//	PR       prio - MAX_RT_PRIO, 20 + nice for the fair policies (/proc/PID/stat's priority)
//	NI       nice
//	S        R running or runnable (on a run queue), S otherwise
//	%CPU     CPU time over the screen's interval (Irix mode, the default: 100 % is one CPU)
//	P        the CPU it last ran on (task_cpu, the stat file's processor)
//	TIME+    CPU time, minutes:seconds.hundredths
//
// Threads that ended are not shown.
package top
