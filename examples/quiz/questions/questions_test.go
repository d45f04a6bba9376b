package questions

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/ule"
)

// The quiz must never state a wrong answer. Its answers come from the library's functions;
// these models restate the kernel's rules independently (sys/kern/sched_ule.c:
// sched_shouldpreempt, sched_setpreempt, tdq_choose with main's calendar of 109 slots) and are
// compared with every question of many seeds.

// shouldPreempt is sched_shouldpreempt: not better → no; idle running → yes; threshold 0 → no;
// under the threshold (inclusive in legacy) → yes; remote interactive over non-interactive → yes.
func shouldPreempt(pri, cpri int, remote bool, p *ule.Params) bool {
	l := p.Layout()
	switch {
	case pri >= cpri:
		return false
	case cpri >= int(l.MinIdle):
		return true
	case p.PreemptThresh == 0:
		return false
	case pri < p.PreemptThresh || (p.PreemptAtThresh && pri == p.PreemptThresh):
		return true
	}
	return remote && pri <= int(l.MaxInteract) && cpri > int(l.MaxInteract)
}

var (
	reThresh = regexp.MustCompile(`ULE \(([^,]+), preempt_thresh (\d+)\)`)
	rePris   = regexp.MustCompile(`priority (?:is )?(\d+) \([^)]*\)`)
	reQueued = regexp.MustCompile(`(?m)^  ([A-E])  priority +(\d+)`)
	reHead   = regexp.MustCompile(`head at slot (\d+)`)
)

func paramsNamed(t *testing.T, name string) ule.Params {
	for _, p := range []ule.Params{ule.DefaultParams(), ule.LegacyParams(), ule.Seed000Params(true, 224)} {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no preset %q", name)
	return ule.Params{}
}

func TestAnswersAgainstKernelRules(t *testing.T) {
	nearBoundary, kinds := 0, map[string]int{}
	defer func() {
		if nearBoundary > 10 {
			t.Errorf("%d CFS wake-up questions within 2 ns of the granularity: too many to leave to the kernel's rounding", nearBoundary)
		}
		if kinds["bsd4 yes"] == 0 || kinds["bsd4 no"] == 0 || kinds["cfs yes"] == 0 || kinds["cfs no"] == 0 {
			t.Errorf("the 4BSD and CFS wake-up questions do not have both answers: %v", kinds)
		}
	}()
	for seed := range uint64(300) {
		for i, q := range Generate(seed, 30) {
			want := -1
			switch {
			case strings.Contains(q.Text, "Which thread runs next?"):
				head, _ := strconv.Atoi(reHead.FindStringSubmatch(q.Text)[1])
				best, bestKey := -1, 1<<30
				for k, m := range reQueued.FindAllStringSubmatch(q.Text, -1) {
					pri, _ := strconv.Atoi(m[2])
					var key int
					switch {
					case pri <= 114: // real-time range of main, strictly by priority
						key = pri
					case pri <= 223: // calendar: distance of the slot from the head
						slot := (pri - 115 + head) % 109
						key = 1000 + (slot-head+109)%109
					default: // idle range
						key = 2000 + pri
					}
					if key < bestKey { // strict: the first queued wins ties (FIFO)
						best, bestKey = k, key
					}
				}
				want = best
			case strings.Contains(q.Text, "What happens?"):
				m := reThresh.FindStringSubmatch(q.Text)
				p := paramsNamed(t, m[1])
				ps := rePris.FindAllStringSubmatch(q.Text, -1)
				pri, _ := strconv.Atoi(ps[0][1])
				cpri, _ := strconv.Atoi(ps[1][1])
				switch {
				case pri < cpri && shouldPreempt(pri, cpri, false, &p):
					want = 2
				case pri < cpri:
					want = 1
				default:
					want = 0
				}
			case strings.Contains(q.Text, "preemption IPI?"):
				m := reThresh.FindStringSubmatch(q.Text)
				p := paramsNamed(t, m[1])
				ps := rePris.FindAllStringSubmatch(q.Text, -1)
				pri, _ := strconv.Atoi(ps[0][1])
				cpri, _ := strconv.Atoi(ps[1][1])
				want = 1
				if shouldPreempt(pri, cpri, true, &p) {
					want = 0
				}
			case strings.Contains(q.Text, "EEVDF"):
				want = eevdfModel(q.facts.(eevdfFacts))
			case strings.Contains(q.Text, "queued on?"):
				// sched_pickcpu's hierarchical searches are the library's, checked there against
				// a transcription of the kernel's cpu_search; here: the question shows the state
				// it was answered on (the text is rebuilt from the facts), and the answer does not
				// depend on the random tie-break.
				f := q.facts.(pickCPUFacts)
				for c, ld := range f.loads {
					line := fmt.Sprintf("cpu%d: idle", c)
					if ld.LowPri != ule.PriMaxIdle {
						line = fmt.Sprintf("cpu%d: %d thread(s), best priority %d", c, ld.Load, ld.LowPri)
					}
					if !strings.Contains(q.Text, line) {
						t.Fatalf("seed %d question %d: the text does not show %q:\n%s", seed, i, line, q.Text)
					}
				}
				for r := uint64(100); r < 108; r++ {
					if c, _ := pickCPU(f, r); int(c) != q.Answer {
						t.Fatalf("seed %d question %d: the answer depends on the tie-break (%v with seed %d):\n%s", seed, i, c, r, q.Text)
					}
				}
				want = q.Answer
			case strings.Contains(q.Text, "steal?"):
				checkSteal(t, seed, i, q)
				want = q.Answer
			case strings.Contains(q.Text, "preempted at once?"):
				want = 1
				if bsd4MaybePreempt(q.facts.(bsd4WakeupFacts)) {
					want = 0
				}
			case strings.Contains(q.Text, "Does W preempt R?"):
				yes, near := cfsWakeupPreempt(q.facts.(cfsWakeupFacts))
				if near {
					nearBoundary++
					want = q.Answer // the kernel's fixed-point division decides within 2 ns of the boundary
				} else if want = 1; yes {
					want = 0
				}
			default:
				t.Fatalf("seed %d question %d: unknown kind:\n%s", seed, i, q.Text)
			}
			if k := strings.SplitN(q.Text, " ", 2)[0]; k == "4BSD" || k == "Linux" && strings.Contains(q.Text, "6.5") {
				kinds[map[bool]string{true: "bsd4", false: "cfs"}[k == "4BSD"]+" "+q.Choices[q.Answer]]++
			}
			if q.Answer != want {
				t.Fatalf("seed %d question %d: the quiz answers %d (%s), the kernel's rules %d:\n%s", seed, i, q.Answer+1, q.Why, want+1, q.Text)
			}
		}
	}
}

// TestSameSeedSameQuestions checks determinism across calls, and that seeds differ.
func TestSameSeedSameQuestions(t *testing.T) {
	a, b, c := Generate(5, 12), Generate(5, 12), Generate(6, 12)
	for i := range a {
		if a[i].Text != b[i].Text || a[i].Answer != b[i].Answer {
			t.Fatalf("question %d differs between two runs of seed 5", i)
		}
	}
	same := 0
	for i := range a {
		if a[i].Text == c[i].Text {
			same++
		}
	}
	if same == len(a) {
		t.Errorf("seeds 5 and 6 ask the same questions")
	}
}

// eevdfModel is pick_eevdf on a queue with nothing running, restated from fair.c v7.1: V is
// the weighted average of the vruntimes; an entity is eligible when its lag V - v is not
// negative, compared without division as Σ w_j (v_j - v0) >= (v_i - v0) Σ w_j; of the eligible
// the earliest deadline wins, ties to the first queued (the timeline keeps equal deadlines in
// insertion order).
func eevdfModel(f eevdfFacts) int {
	var sumWV, sumW big.Int
	for i := range f.weights {
		w := big.NewInt(f.weights[i])
		sumW.Add(&sumW, w)
		sumWV.Add(&sumWV, new(big.Int).Mul(w, big.NewInt(f.vruntimes[i])))
	}
	best := -1
	for i := range f.weights {
		rhs := new(big.Int).Mul(big.NewInt(f.vruntimes[i]), &sumW)
		if sumWV.Cmp(rhs) < 0 {
			continue // not eligible
		}
		if best < 0 || f.deadlines[i] < f.deadlines[best] {
			best = i
		}
	}
	return best
}

// checkSteal checks what any steal of tdq_idled must satisfy, whatever the search order: a
// stolen thread was queued (not running) on a CPU holding at least steal_thresh threads, and it
// may run on CPU 0; and if nothing is stolen, no CPU held a queued thread CPU 0 may run while
// holding steal_thresh threads or more.
func checkSteal(t *testing.T, seed uint64, i int, q Question) {
	t.Helper()
	f := q.facts.(stealFacts)
	pinned := map[string]bool{}
	for _, m := range regexp.MustCompile(`queued t(\d+) \(pri \d+, pinned\)`).FindAllStringSubmatch(q.Text, -1) {
		pinned[m[1]] = true
	}
	if q.Choices[q.Answer] == "nothing" {
		for cpu, qs := range f.queued {
			for _, id := range qs {
				if f.load[cpu] >= f.thresh && !pinned[strconv.Itoa(int(id))] {
					t.Fatalf("seed %d question %d: nothing stolen, but t%d on cpu%d (load %d >= %d) could be:\n%s", seed, i, id, cpu, f.load[cpu], f.thresh, q.Text)
				}
			}
		}
		return
	}
	m := regexp.MustCompile(`^t(\d+) from cpu(\d+)$`).FindStringSubmatch(q.Choices[q.Answer])
	cpu, _ := strconv.Atoi(m[2])
	if pinned[m[1]] {
		t.Fatalf("seed %d question %d: stole t%s, which is pinned to cpu%d:\n%s", seed, i, m[1], cpu, q.Text)
	}
	if f.load[cpu] < f.thresh {
		t.Fatalf("seed %d question %d: stole from cpu%d with %d threads, under steal_thresh %d:\n%s", seed, i, cpu, f.load[cpu], f.thresh, q.Text)
	}
}

// bsd4MaybePreempt is maybe_preempt of sys/kern/sched_4bsd.c with options PREEMPTION: a worse
// or equal priority never preempts; without FULL_PREEMPTION only an interrupt-thread priority
// (≤ PRI_MAX_ITHD) preempts, or anything preempts the idle class (≥ PRI_MIN_IDLE).
func bsd4MaybePreempt(f bsd4WakeupFacts) bool {
	if f.pri >= f.cpri {
		return false
	}
	return f.full || f.pri <= int(f.layout.MaxITHD) || f.cpri >= int(f.layout.MinIdle)
}

// cfsWakeupPreempt is check_preempt_wakeup's test of Linux 6.5's kernel/sched/fair.c for two
// SCHED_NORMAL tasks in one queue (wakeup_preempt_entity): W preempts when its vruntime is
// before R's by more than wakeup_gran(W), the granularity scaled by NICE_0_LOAD / W's weight
// (calc_delta_fair), computed here exactly. near reports a lead within 2 ns of that bound, where
// the kernel's fixed-point __calc_delta may round either way.
func cfsWakeupPreempt(f cfsWakeupFacts) (yes, near bool) {
	lead := f.currV - f.wakeeV
	if lead <= 0 {
		return false, false
	}
	// lead > gran·2^20/weight  ⇔  lead·weight > gran·2^20
	l := new(big.Int).Mul(big.NewInt(lead), new(big.Int).SetUint64(f.wakeeWeight))
	g := new(big.Int).Mul(new(big.Int).SetUint64(f.gran), big.NewInt(1<<20))
	diff := new(big.Int).Sub(l, g)
	slack := new(big.Int).Mul(big.NewInt(2), new(big.Int).SetUint64(f.wakeeWeight))
	return diff.Sign() > 0, new(big.Int).Abs(diff).Cmp(slack) <= 0
}
