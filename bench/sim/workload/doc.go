// Package workload describes what the threads of a simulation do: behaviour scripts of runs,
// sleeps, pipe messages, forks and joins, with each thread's scheduling attributes (nice, class,
// real-time priority, affinity, control group). A [Workload] is plain Go data; it also has a
// human-writable text form ([Parse], [Format]) and a JSON form ([ParseJSON]), and both readers
// validate their input and return errors positioned at the offending line and column.
//
// The simulator in bench/sim runs a workload on a machine under a policy. This package holds no
// machine: it only says what the threads want, so that the same workload file runs unchanged under
// ULE, 4BSD and CFS on any topology.
//
// # The text form
//
// A workload is a list of declarations, one per line; # starts a comment. Groups and pipes are
// one line each; threads and templates open a block of behaviours that end closes, and so do the
// loop, repeat and every behaviours:
//
//	# two CPU hogs beside a latency-sensitive periodic thread
//	group batch weight=50 idle          # cgroup: parent=NAME, weight=1..10000, idle
//	pipe jobs cap=16                    # a pipe holding up to 16 messages (cap=0: unbounded)
//	pipe sock cap=278 room=209          # senders blocked on it wait until 209 are free
//
//	thread hog count=2 nice=20 group=batch
//		run forever
//	end
//
//	thread ticker class=fifo rtprio=50 cpus=0-1
//		every 10ms                      # wake at 0, 10ms, 20ms, … of simulated time
//			run exp(200us)              # durations: 10ms, uniform(1ms,3ms), exp(2ms)
//		end
//	end
//
//	thread probe count=4 class=rr rtprio=freebsd:0  # rtprio(2) level 0, FreeBSD's most important
//		every 10ms 100 phase=stagger    # 100 periods; probe.i wakes at i*2.5ms + k*10ms
//			run 50us
//		end
//	end
//
//	thread producer
//		loop
//			run uniform(50us,150us)
//			send jobs                   # blocks while jobs holds 16 messages
//		end
//	end
//
//	thread consumer count=4 start=1ms
//		loop
//			recv jobs                   # blocks while jobs is empty
//			run 100us
//		end
//	end
//
// Thread arguments are count=N (instances named NAME.0, NAME.1, …), start=DURATION (delayed
// creation), class=normal|batch|idle|fifo|rr, nice=N, rtprio=PRIO, cpus=LIST (a Linux cpulist),
// group=NAME, slice=DURATION, slack=DURATION (the timer slack of its sleeps, as
// prctl(PR_SET_TIMERSLACK) sets it: a SCHED_OTHER program that does not set it has Linux's
// 50us) and process=NAME (threads of declarations with the same process are
// threads of one address space; each declaration is a process of its own otherwise). PRIO is the priority as the program asked for it: N or linux:N
// for Linux's sched_setscheduler(2) (1..99, larger is more important), freebsd:N for FreeBSD's
// rtprio(2) (0..31, smaller is more important); the policy maps it onto its own levels or
// refuses it when the run starts, so all 32 rtprio(2) levels can be written. A template takes the same arguments except count and start; the
// machine does not start it, fork does. The behaviours, their arguments and their meaning are
// listed with [Kind]. A thread exits after its last behaviour. A workload with no threads, even
// an empty text, is valid: a machine runs it to an immediate end.
//
// every PERIOD N runs its body N times in all, once per period; without N it runs forever.
// Its periods are fixed in absolute simulated time (phase=DURATION shifts them,
// phase=stagger spreads the instances of a count=N thread over the period, phase=arrival
// counts them from when the thread reaches the every); see [PhaseMode].
//
// # Time and randomness
//
// Durations are integer nanoseconds ([Duration]). A [Dist] draws them with integer arithmetic
// only (the exponential uses a fixed-point logarithm), so that a seeded source gives the same
// durations on every architecture; the simulator gives each thread its own source, so a thread
// draws the same durations whichever policy runs it.
//
// Every op but run, spin, sleep and every takes no simulated time, and the machine stretches a run or
// sleep of 0 to 1 ns. [Workload.Validate] therefore refuses what would stand still: a loop whose
// body has no run or sleep of a positive duration and no every, and more than [MaxInstant]
// repetitions of an op at one instant (nested repeats without time, times the count of a send,
// recv or fork), so that a valid workload always runs to its end or to the time limit.
//
// # Kernel names
//
// Workloads imitate the programs schedulers are measured with:
//
//	program                                  workload
//	CPU hog (while (1);), cpuburner          run forever
//	hackbench / perf bench sched messaging   senders and receivers on pipes: send, recv
//	schbench worker wake-ups                 every PERIOD … end, wake-to-run latency
//	a loop reading the clock (usec_spin)     spin DIST: ends by the wall clock
//	make -j N (job trees)                    template + fork N + join
//	make's job loop: poll(2) on the jobs'    until PIPE … end, its body a recv on the
//	output pipes until SIGCHLD               pipe of the others
//	nice(1), chrt(1), taskset(1), cgroup v2  nice=, class= rtprio=, cpus=, group= (and the ops)
//	sched_yield(2)                           yield
package workload
