package bsd4

// This file implements the kernel's load average (loadav in sys/kern/kern_synch.c), the input
// of 4BSD's decay.

// The decay constants of the 1-, 5- and 15-minute load averages when sampling every 5 seconds:
// exp(−5/60), exp(−5/300) and exp(−5/900) as Fixpt, truncated (cexp[] in kern_synch.c).
const (
	CExp1  Fixpt = 1884 // 0.9200444146293232·2048 = 1884.25
	CExp5  Fixpt = 2014 // 0.9834714538216174·2048 = 2014.15
	CExp15 Fixpt = 2036 // 0.9944598480048967·2048 = 2036.65
)

// A LoadAvg is averunnable.ldavg: the 1-, 5- and 15-minute exponentially weighted averages of
// the number of runnable threads, as Fixpt. The zero value is the boot-time value.
type LoadAvg [3]Fixpt

// Update returns the load average after one sample of nrun runnable threads (loadav in
// kern_synch.c): ldavg[i] = (cexp[i]·ldavg[i] + nrun·FScale·(FScale − cexp[i])) >> FShift, in
// the 64-bit arithmetic of current kernels (cexp[] and nrun are uint64_t; nrun is sched_load(),
// 4BSD's sched_tdcnt), truncated to fixpt_t on the store.
func (l LoadAvg) Update(nrun int) LoadAvg {
	cexp := [3]Fixpt{CExp1, CExp5, CExp15}
	for i := range l {
		l[i] = Fixpt((uint64(cexp[i])*uint64(l[i]) + uint64(nrun)*uint64(FScale)*uint64(FScale-cexp[i])) >> FShift)
	}
	return l
}

// Update32 is [LoadAvg.Update] in the u_int arithmetic of older kernels such as FreeBSD 9
// (kern_synch.c @282184e1), whose products wrap once about 1,050 threads are runnable.
func (l LoadAvg) Update32(nrun int) LoadAvg {
	cexp := [3]Fixpt{CExp1, CExp5, CExp15}
	for i := range l {
		l[i] = Fixpt((uint32(cexp[i])*uint32(l[i]) + uint32(nrun)*uint32(FScale)*uint32(FScale-cexp[i])) >> FShift)
	}
	return l
}

// LoadavInterval returns the time in nanoseconds until the next load-average sample, given r
// from a random source: 4 s plus r mod 2,000,001 µs, so uniformly 4 to 6 s (kern_synch.c
// reschedules loadav with random() this way "to avoid synchronisation with processes that run at
// regular intervals").
func LoadavInterval(r uint64) int64 {
	return (4_000_000 + int64(r%2_000_001)) * 1000
}

// LoadavIntervalTicks is LoadavInterval as FreeBSD 9 drew it, in whole hz ticks:
// hz·4 + r mod (hz·2 + 1) ticks, returned in nanoseconds.
func LoadavIntervalTicks(r uint64, hz int) int64 {
	ticks := int64(hz)*4 + int64(r%uint64(hz*2+1))
	return ticks * 1_000_000_000 / int64(hz)
}
