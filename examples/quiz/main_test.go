package main

import (
	"bytes"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/golden"
	"github.com/schedkit/schedkit/ule"
)

// TestGolden pins the questions of seed 1 with their answers: the same seed asks the same
// questions.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	if _, err := run(&buf, nil, 1, 9, true, false); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/seed1.golden", buf.Bytes())
}

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
	for seed := range uint64(300) {
		for i, q := range generate(seed, 30) {
			want := -1
			switch {
			case strings.Contains(q.text, "Which thread runs next?"):
				head, _ := strconv.Atoi(reHead.FindStringSubmatch(q.text)[1])
				best, bestKey := -1, 1<<30
				for k, m := range reQueued.FindAllStringSubmatch(q.text, -1) {
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
			case strings.Contains(q.text, "What happens?"):
				m := reThresh.FindStringSubmatch(q.text)
				p := paramsNamed(t, m[1])
				ps := rePris.FindAllStringSubmatch(q.text, -1)
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
			case strings.Contains(q.text, "preemption IPI?"):
				m := reThresh.FindStringSubmatch(q.text)
				p := paramsNamed(t, m[1])
				ps := rePris.FindAllStringSubmatch(q.text, -1)
				pri, _ := strconv.Atoi(ps[0][1])
				cpri, _ := strconv.Atoi(ps[1][1])
				want = 1
				if shouldPreempt(pri, cpri, true, &p) {
					want = 0
				}
			case strings.Contains(q.text, "EEVDF"):
				want = eevdfModel(q.facts.(eevdfFacts))
			case strings.Contains(q.text, "queued on?"):
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
					if !strings.Contains(q.text, line) {
						t.Fatalf("seed %d question %d: the text does not show %q:\n%s", seed, i, line, q.text)
					}
				}
				for r := uint64(100); r < 108; r++ {
					if c, _ := pickCPU(f, r); int(c) != q.answer {
						t.Fatalf("seed %d question %d: the answer depends on the tie-break (%v with seed %d):\n%s", seed, i, c, r, q.text)
					}
				}
				want = q.answer
			case strings.Contains(q.text, "steal?"):
				checkSteal(t, seed, i, q)
				want = q.answer
			default:
				t.Fatalf("seed %d question %d: unknown kind:\n%s", seed, i, q.text)
			}
			if q.answer != want {
				t.Fatalf("seed %d question %d: the quiz answers %d (%s), the kernel's rules %d:\n%s", seed, i, q.answer+1, q.why, want+1, q.text)
			}
		}
	}
}

// TestAnswering runs the quiz on given answers: the right ones score full marks, wrong ones
// are corrected with the answer and the reason, and an answer that is not a choice is an error.
func TestAnswering(t *testing.T) {
	qs := generate(3, 6)
	var right, wrong []string
	for _, q := range qs {
		right = append(right, strconv.Itoa(q.answer+1))
		wrong = append(wrong, strconv.Itoa((q.answer+1)%len(q.choices)+1))
	}
	var buf bytes.Buffer
	if n, err := run(&buf, strings.NewReader(strings.Join(right, "\n")), 3, 6, false, false); err != nil || n != 6 {
		t.Fatalf("right answers scored %d, %v; want 6, nil", n, err)
	}
	buf.Reset()
	if n, err := run(&buf, strings.NewReader(strings.Join(wrong, "\n")), 3, 6, false, false); err != nil || n != 0 {
		t.Fatalf("wrong answers scored %d, %v; want 0, nil", n, err)
	}
	if !strings.Contains(buf.String(), "No: ") {
		t.Errorf("a wrong answer is not corrected:\n%s", buf.String())
	}
	for _, bad := range []string{"0", "9", "x", ""} {
		if _, err := run(&buf, strings.NewReader(bad+"\n"), 3, 1, false, false); err == nil {
			t.Errorf("answer %q accepted", bad)
		}
	}
	if _, err := run(&buf, strings.NewReader(""), 3, 1, false, false); err == nil {
		t.Errorf("no answer accepted")
	}
}

// TestAnswerByName answers with the labels the quiz shows: seed 1's first question lists
// threads A, B, C and A runs next; the second offers three outcomes, the third "yes" and "no".
// Typing a label is an answer, in any case; typing something else asks again instead of ending
// the quiz.
func TestAnswerByName(t *testing.T) {
	qs := generate(1, 3)
	if qs[0].choices[qs[0].answer] != "A" || qs[2].choices[qs[2].answer] != "no" {
		t.Fatalf("seed 1 changed: answers %q and %q, want A and no", qs[0].choices[qs[0].answer], qs[2].choices[qs[2].answer])
	}
	var buf bytes.Buffer
	n, err := run(&buf, strings.NewReader("A\n3\nNo\n"), 1, 3, false, true)
	if err != nil || n != 3 {
		t.Fatalf("answers A, 3, No scored %d, %v; want 3, nil:\n%s", n, err, buf.String())
	}
	buf.Reset()
	n, err = run(&buf, strings.NewReader("X\n a \n4\n2\n"), 1, 2, false, true)
	if err != nil || n != 1 {
		t.Fatalf("answers X, a, 4, 2 scored %d, %v; want 1 (X and 4 asked again), nil:\n%s", n, err, buf.String())
	}
	out := buf.String()
	for _, want := range []string{`"X" is not a choice: answer 1..3 or A, B, C.`, `"4" is not a choice: answer 1..3.`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run(&buf, strings.NewReader("X\n"), 1, 1, false, false); err == nil || !strings.Contains(err.Error(), `question 1: "X" is not a choice`) {
		t.Errorf("-answers with X: error %v, want one naming question 1 and X", err)
	}
}

// TestSameSeedSameQuestions checks determinism across calls, and that seeds differ.
func TestSameSeedSameQuestions(t *testing.T) {
	a, b, c := generate(5, 12), generate(5, 12), generate(6, 12)
	for i := range a {
		if a[i].text != b[i].text || a[i].answer != b[i].answer {
			t.Fatalf("question %d differs between two runs of seed 5", i)
		}
	}
	same := 0
	for i := range a {
		if a[i].text == c[i].text {
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
func checkSteal(t *testing.T, seed uint64, i int, q question) {
	t.Helper()
	f := q.facts.(stealFacts)
	pinned := map[string]bool{}
	for _, m := range regexp.MustCompile(`queued t(\d+) \(pri \d+, pinned\)`).FindAllStringSubmatch(q.text, -1) {
		pinned[m[1]] = true
	}
	if q.choices[q.answer] == "nothing" {
		for cpu, qs := range f.queued {
			for _, id := range qs {
				if f.load[cpu] >= f.thresh && !pinned[strconv.Itoa(int(id))] {
					t.Fatalf("seed %d question %d: nothing stolen, but t%d on cpu%d (load %d >= %d) could be:\n%s", seed, i, id, cpu, f.load[cpu], f.thresh, q.text)
				}
			}
		}
		return
	}
	m := regexp.MustCompile(`^t(\d+) from cpu(\d+)$`).FindStringSubmatch(q.choices[q.answer])
	cpu, _ := strconv.Atoi(m[2])
	if pinned[m[1]] {
		t.Fatalf("seed %d question %d: stole t%s, which is pinned to cpu%d:\n%s", seed, i, m[1], cpu, q.text)
	}
	if f.load[cpu] < f.thresh {
		t.Fatalf("seed %d question %d: stole from cpu%d with %d threads, under steal_thresh %d:\n%s", seed, i, cpu, f.load[cpu], f.thresh, q.text)
	}
}
