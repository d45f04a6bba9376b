// Command quiz asks questions about scheduler decisions and checks the answers against the
// policies themselves, in the spirit of OSTEP's scheduling homework: it generates a small
// problem from a seed, you predict, and -c shows the answer with the policy's own explanation.
//
// Run it with
//
//	go run ./examples/quiz                  # answer on standard input: a choice's number or its name
//	go run ./examples/quiz -seed 7 -n 10    # another set of ten questions
//	go run ./examples/quiz -answers 2,1,3   # answers given as a flag
//	go run ./examples/quiz -c               # show every answer and why
//
// The same seed always asks the same questions. Every answer comes from the pure function the
// library exposes for that decision — ule.Pick (which thread runs next), ule.SetPreempt (what a
// local wake-up asks of the CPU), ule.ShouldPreempt (whether a remote CPU is preempted),
// cfs.Pick on a queue built at the shown state (which task EEVDF runs), ule.System.Steal (what
// an idle CPU steals), ule.System.PickCPU (which CPU a woken thread goes to), bsd4.ShouldPreempt
// (whether a wake-up preempts under 4BSD), cfs.CheckPreemptWakeup on a queue built at the shown
// state (whether a woken CFS task preempts) — and the explanation is that function's reason,
// so the quiz can be no more wrong than the library. The questions are package
// examples/quiz/questions, which the course page's quiz runs too.
// The questions' tests check the answers of thousands of questions against rules restated
// from sched_ule.c, sched_4bsd.c and fair.c (the pick, preemption, wake-up and EEVDF
// questions), against what any answer must satisfy (steals), and against the state the text
// shows (CPU placement).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/examples/quiz/questions"
)

func main() {
	seed := flag.Uint64("seed", 1, "the seed of the questions")
	n := flag.Int("n", 5, "how many questions")
	show := flag.Bool("c", false, "print the answers and explanations instead of asking")
	answers := flag.String("answers", "", "comma-separated answers, one per question (instead of standard input)")
	flag.Parse()
	if flag.NArg() > 0 || *n < 1 || *n > 1000 {
		fmt.Fprintln(os.Stderr, "usage: quiz [-seed N] [-n 1..1000] [-c] [-answers 1,2,...]")
		os.Exit(2)
	}
	var in io.Reader = os.Stdin
	reask := true
	if *answers != "" {
		in = strings.NewReader(strings.ReplaceAll(*answers, ",", "\n") + "\n")
		reask = false // a wrong entry would shift the rest onto the wrong questions
	}
	right, err := run(os.Stdout, in, *seed, *n, *show, reask)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quiz:", err)
		os.Exit(2)
	}
	if !*show {
		fmt.Printf("\n%d of %d right\n", right, *n)
	}
}

// run asks the questions on w, reading answers from in unless show is set, and returns how many
// were right. An answer is a choice's number or the choice itself as shown (a thread "A", "yes",
// "cpu2"), in any case. One that is neither is asked again when reask is set (someone typing),
// and is an error naming it otherwise.
func run(w io.Writer, in io.Reader, seed uint64, n int, show, reask bool) (int, error) {
	sc := bufio.NewScanner(in)
	right := 0
	for i, q := range questions.Generate(seed, n) {
		fmt.Fprintf(w, "\nQuestion %d.\n%s\n", i+1, q.Text)
		for k, c := range q.Choices {
			fmt.Fprintf(w, "  %d) %s\n", k+1, c)
		}
		if show {
			fmt.Fprintf(w, "Answer: %d) %s\nWhy: %s\n", q.Answer+1, q.Choices[q.Answer], q.Why)
			continue
		}
		var a int
		for {
			fmt.Fprint(w, "Your answer: ")
			if !sc.Scan() {
				if err := sc.Err(); err != nil {
					return right, err
				}
				return right, errors.New("no answer for question " + strconv.Itoa(i+1))
			}
			var ok bool
			if a, ok = choose(sc.Text(), q.Choices); ok {
				break
			}
			msg := fmt.Sprintf("%q is not a choice: answer %s", strings.TrimSpace(sc.Text()), choiceHint(q.Choices))
			if !reask {
				return right, fmt.Errorf("question %d: %s", i+1, msg)
			}
			fmt.Fprintf(w, "%s.\n", msg)
		}
		if a-1 == q.Answer {
			right++
			fmt.Fprintf(w, "\nRight. %s\n", q.Why)
		} else {
			fmt.Fprintf(w, "\nNo: %d) %s. %s\n", q.Answer+1, q.Choices[q.Answer], q.Why)
		}
	}
	return right, nil
}

// choose returns the 1-based choice that answer names: its number, or its text (case and
// surrounding blanks ignored), and whether it names one.
func choose(answer string, choices []string) (int, bool) {
	answer = strings.TrimSpace(answer)
	if a, err := strconv.Atoi(answer); err == nil {
		return a, a >= 1 && a <= len(choices)
	}
	for k, c := range choices {
		if strings.EqualFold(answer, c) {
			return k + 1, true
		}
	}
	return 0, false
}

// choiceHint says what an answer may be: "1..3 or A, B, C"; the choices' texts are listed when
// they are short names.
func choiceHint(choices []string) string {
	hint := fmt.Sprintf("1..%d", len(choices))
	for _, c := range choices {
		if len(c) > 12 {
			return hint
		}
	}
	return hint + " or " + strings.Join(choices, ", ")
}
