package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/golden"
	"github.com/schedkit/schedkit/examples/quiz/questions"
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

// TestAnswering runs the quiz on given answers: the right ones score full marks, wrong ones
// are corrected with the answer and the reason, and an answer that is not a choice is an error.
func TestAnswering(t *testing.T) {
	qs := questions.Generate(3, 6)
	var right, wrong []string
	for _, q := range qs {
		right = append(right, strconv.Itoa(q.Answer+1))
		wrong = append(wrong, strconv.Itoa((q.Answer+1)%len(q.Choices)+1))
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
	qs := questions.Generate(1, 3)
	if qs[0].Choices[qs[0].Answer] != "A" || qs[2].Choices[qs[2].Answer] != "no" {
		t.Fatalf("seed 1 changed: answers %q and %q, want A and no", qs[0].Choices[qs[0].Answer], qs[2].Choices[qs[2].Answer])
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
