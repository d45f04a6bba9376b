package runq_test

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
)

// Thread is the element type of the examples: a Link embedded in the caller's own struct.
type Thread struct {
	runq.Link[Thread]
	Name string
	Pri  uint8 // 0 is the most important priority
	CPU  int   // the CPU it last ran on
}

// NewThread returns a thread whose link is bound to it.
func NewThread(name string, pri uint8) *Thread {
	t := &Thread{Name: name, Pri: pri}
	t.Init(t)
	return t
}

// Example queues threads by priority, picks the next one to run, and shows the status bitmap
// that makes the pick O(1).
func Example() {
	var q runq.Runq[Thread]
	for _, t := range []*Thread{
		NewThread("editor", 90), NewThread("make", 150), NewThread("cc", 150), NewThread("irq", 4),
	} {
		q.Add(runq.Index(t.Pri), &t.Link)
	}
	st := q.Status()
	fmt.Println("non-empty queues:", st.String())
	for !q.Empty() {
		t, _ := q.Choose()
		q.Remove(&t.Link)
		fmt.Println("run", t.Name)
	}
	// Output:
	// non-empty queues: {4 90 150}
	// run irq
	// run editor
	// run make
	// run cc
}

// ExampleRunq_AddHead shows that a preempted thread goes back to the head of its queue, ahead of
// threads of equal priority that were waiting.
func ExampleRunq_AddHead() {
	var q runq.Runq[Thread]
	a, b, preempted := NewThread("a", 120), NewThread("b", 120), NewThread("preempted", 120)
	q.Add(120, &a.Link)
	q.Add(120, &b.Link)
	q.AddHead(120, &preempted.Link)
	for t := range q.Queue(120).All() {
		fmt.Print(t.Name, " ")
	}
	fmt.Println()
	// Output: preempted a b
}

// ExampleRunq_Remove shows the result FreeBSD's runq_remove returns: whether the queue became
// empty, so the caller knows its status bit is now clear.
func ExampleRunq_Remove() {
	var q runq.Runq[Thread]
	a, b := NewThread("a", 7), NewThread("b", 7)
	q.Add(7, &a.Link)
	q.Add(7, &b.Link)
	fmt.Println(q.Remove(&a.Link), q.IsQueueEmpty(7))
	fmt.Println(q.Remove(&b.Link), q.IsQueueEmpty(7))
	// Output:
	// false false
	// true true
}

// ExampleRunq_Find uses the one search primitive with a predicate that looks inside each queue:
// it takes, from the best queue that has one, a thread that last ran on CPU 1 (not necessarily
// the head), the way 4BSD's runq_choose_fuzz prefers cache-warm threads.
func ExampleRunq_Find() {
	var q runq.Runq[Thread]
	for _, t := range []struct {
		name string
		pri  uint8
		cpu  int
	}{{"a", 60, 0}, {"b", 60, 0}, {"c", 70, 0}, {"d", 70, 1}, {"e", 80, 1}} {
		x := NewThread(t.name, t.pri)
		x.CPU = t.cpu
		q.Add(runq.Index(x.Pri), &x.Link)
	}
	var chosen *Thread
	onCPU1 := func(_ runq.Index, qq *runq.Queue[Thread]) bool {
		var ok bool
		chosen, ok = qq.FirstMatch(func(t *Thread) bool { return t.CPU == 1 })
		return ok
	}
	i, ok := q.Find(runq.FullRange(), onCPU1)
	fmt.Println(i, ok, chosen.Name)
	// Output: 70 true d
}

// ExampleRunq_FindCircular scans ULE's timeshare calendar (queues 56..223 in FreeBSD main) from
// the dequeue offset and wraps around, so the thread nearest after the offset runs first.
func ExampleRunq_FindCircular() {
	var q runq.Runq[Thread]
	for _, t := range []*Thread{NewThread("early", 60), NewThread("late", 200)} {
		q.Add(runq.Index(t.Pri), &t.Link)
	}
	timeshare := runq.Range{Lo: 56, Hi: 223}
	first := func(_ runq.Index, _ *runq.Queue[Thread]) bool { return true }
	for _, off := range []runq.Index{56, 100, 210} {
		i, _ := q.FindCircular(timeshare, off, first)
		fmt.Printf("offset %d: queue %d (%s)\n", off, i, q.Queue(i).Front().Name)
	}
	// Output:
	// offset 56: queue 60 (early)
	// offset 100: queue 200 (late)
	// offset 210: queue 60 (early)
}

// ExampleRunq_FirstIn chooses within one band of priorities, as ULE's tdq_choose takes realtime
// threads before it looks at the timeshare calendar.
func ExampleRunq_FirstIn() {
	var q runq.Runq[Thread]
	for _, t := range []*Thread{NewThread("batch", 180), NewThread("interactive", 70), NewThread("idle", 240)} {
		q.Add(runq.Index(t.Pri), &t.Link)
	}
	for _, r := range []runq.Range{{Lo: 0, Hi: 55}, {Lo: 56, Hi: 223}, {Lo: 224, Hi: 255}} {
		t, ok := q.FirstIn(r)
		if !ok {
			fmt.Println(r, "empty")
			continue
		}
		fmt.Println(r, t.Name)
	}
	// Output:
	// 0..55 empty
	// 56..223 interactive
	// 224..255 idle
}

// ExampleRunq_Steal is the thief's side of ULE's idle stealing: the first thread, in priority
// then FIFO order, that is not pinned to its CPU.
func ExampleRunq_Steal() {
	var q runq.Runq[Thread]
	pinned := map[string]bool{"pinned": true}
	for _, t := range []*Thread{NewThread("pinned", 100), NewThread("free", 100), NewThread("later", 150)} {
		q.Add(runq.Index(t.Pri), &t.Link)
	}
	t, ok := q.Steal(runq.FullRange(), func(t *Thread) bool { return !pinned[t.Name] })
	fmt.Println(t.Name, ok)
	// Output: free true
}

// ExampleRunq_All lists the non-empty queues with their contents.
func ExampleRunq_All() {
	var q runq.Runq[Thread]
	for _, t := range []*Thread{NewThread("a", 9), NewThread("b", 9), NewThread("c", 200)} {
		q.Add(runq.Index(t.Pri), &t.Link)
	}
	for i, qq := range q.All() {
		fmt.Print(i, ":")
		for t := range qq.All() {
			fmt.Print(" ", t.Name)
		}
		fmt.Println()
	}
	// Output:
	// 9: a b
	// 200: c
}

// ExampleRunq_Elems lists every queued thread in the order the queue would hand them out.
func ExampleRunq_Elems() {
	var q runq.Runq[Thread]
	for _, t := range []*Thread{NewThread("c", 200), NewThread("a", 9), NewThread("b", 9)} {
		q.Add(runq.Index(t.Pri), &t.Link)
	}
	for i, t := range q.Elems() {
		fmt.Print(t.Name, "@", i, " ")
	}
	fmt.Println()
	// Output: a@9 b@9 c@200
}

// ExampleLink_Init binds an element's embedded link once; the Runq then hands out the element.
func ExampleLink_Init() {
	t := &Thread{Name: "worker"}
	t.Init(t)
	var q runq.Runq[Thread]
	q.Add(30, &t.Link)
	i, queued := t.Index()
	got, _ := q.Choose()
	fmt.Println(got.Name, i, queued)
	// Output: worker 30 true
}

// ExampleQueue_FirstMatch walks one queue in FIFO order for the first element that passes a test.
func ExampleQueue_FirstMatch() {
	var q runq.Runq[Thread]
	for _, n := range []string{"x", "y", "z"} {
		t := NewThread(n, 5)
		q.Add(5, &t.Link)
	}
	t, ok := q.Queue(5).FirstMatch(func(t *Thread) bool { return t.Name != "x" })
	fmt.Println(t.Name, ok, q.Queue(5).Len())
	// Output: y true 3
}

// ExampleStatus shows the four 64-bit status words behind the 256 queues.
func ExampleStatus() {
	var s runq.Status
	for _, i := range []runq.Index{0, 1, 63, 64, 200} {
		s.Set(i)
	}
	for w := range len(s) {
		fmt.Printf("word %d: %#016x\n", w, s[w])
	}
	fmt.Println(s.String(), s.Count())
	// Output:
	// word 0: 0x8000000000000003
	// word 1: 0x0000000000000001
	// word 2: 0x0000000000000000
	// word 3: 0x0000000000000100
	// {0-1 63-64 200} 5
}

// ExampleStatus_After walks the non-empty queues one after another without writing i+1, which
// would wrap at 255.
func ExampleStatus_After() {
	var s runq.Status
	for _, i := range []runq.Index{3, 120, 255} {
		s.Set(i)
	}
	for i, ok := s.First(); ok; i, ok = s.After(i) {
		fmt.Print(i, " ")
	}
	fmt.Println()
	// Output: 3 120 255
}

// ExampleStatus_FirstIn finds the first non-empty queue inside a band of priorities.
func ExampleStatus_FirstIn() {
	var s runq.Status
	s.Set(10)
	s.Set(150)
	fmt.Println(s.FirstIn(runq.Range{Lo: 56, Hi: 223}))
	fmt.Println(s.FirstIn(runq.Range{Lo: 11, Hi: 149}))
	// Output:
	// 150 true
	// 0 false
}

// ExampleRange shows inclusive bounds: the range 56..223 is FreeBSD main's timeshare band, 168
// queues.
func ExampleRange() {
	ts := runq.Range{Lo: 56, Hi: 223}
	fmt.Println(ts, ts.Len(), ts.Contains(223), ts.Contains(224), runq.FullRange().Len())
	// Output: 56..223 168 true false 256
}

// ExampleFold is seed 003's motivation. The 32 POSIX SCHED_FIFO/RR levels map to consecutive
// internal priorities (16..47 before FreeBSD's 2025 rework, 8..39 after). With four priorities
// per queue they fall into 8 queues; with one per queue they keep 32.
func ExampleFold() {
	count := func(f runq.Fold, minRT uint8) int {
		seen := map[runq.Index]bool{}
		for posix := range 32 {
			seen[f.Index(minRT+31-uint8(posix))] = true
		}
		return len(seen)
	}
	fmt.Println("legacy, 64 queues:", count(runq.LegacyFold, 16), "distinct queues")
	fmt.Println("main, 256 queues: ", count(runq.NoFold, 8), "distinct queues")
	fmt.Println("legacy queue of POSIX 31 and 28:", runq.LegacyFold.Index(16+0), runq.LegacyFold.Index(16+3))
	// Output:
	// legacy, 64 queues: 8 distinct queues
	// main, 256 queues:  32 distinct queues
	// legacy queue of POSIX 31 and 28: 4 4
}

// ExampleRunq_Snapshot draws a run queue as the course does: the status words, and under each
// set bit its queue; then a traced search of ULE's timeshare range for a thread that may run on
// CPU 1, with the queues it looked at.
func ExampleRunq_Snapshot() {
	var q runq.Runq[Thread]
	for _, x := range []struct {
		name string
		pri  uint8
		cpu  int
	}{{"irq", 4, 0}, {"a", 60, 0}, {"c", 70, 0}, {"d", 70, 1}} {
		t := NewThread(x.name, x.pri)
		t.CPU = x.cpu
		q.Add(runq.Index(x.pri), &t.Link)
	}
	s := q.Snapshot(func(t *Thread) string { return t.Name })
	fmt.Println(s.Words, s.Len)
	for _, qs := range s.Queues {
		fmt.Println(qs.Index, qs.Elems)
	}
	var search runq.Search
	r := runq.Range{Lo: 56, Hi: 223}
	search.Finish(q.Find(r, runq.Trace(r, func(_ runq.Index, qq *runq.Queue[Thread]) bool {
		_, ok := qq.FirstMatch(func(t *Thread) bool { return t.CPU == 1 })
		return ok
	}, &search)))
	fmt.Printf("%+v\n", search)
	// Output:
	// [1000000000000010 0000000000000040 0000000000000000 0000000000000000] 4
	// 4 [irq]
	// 60 [a]
	// 70 [c d]
	// {Range:56..223 Visits:[{Index:60 Stop:false} {Index:70 Stop:true}] Found:70 OK:true}
}
