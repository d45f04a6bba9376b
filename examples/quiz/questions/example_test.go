package questions_test

import (
	"fmt"

	"github.com/schedkit/schedkit/examples/quiz/questions"
)

// The seventh question of seed 1 is a 4BSD wake-up; its answer and reason are
// bsd4.ShouldPreempt's.
func ExampleGenerate() {
	q := questions.Generate(1, 7)[6]
	fmt.Println(q.Text)
	fmt.Println(q.Choices[q.Answer]+":", q.Why)
	// Output:
	// 4BSD (4bsd-main, options PREEMPTION and FULL_PREEMPTION). A thread of priority 7 (interrupt thread) becomes runnable on the CPU
	// that is running a thread of priority 61 (time-sharing). Is the running thread preempted at once?
	// yes: pri 7 preempts pri 61: interrupt-thread priority
}
