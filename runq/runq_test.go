package runq_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/runq"
)

// task is the element type of the external tests.
type task struct {
	runq.Link[task]
	name string
}

func newTask(name string) *task {
	t := &task{name: name}
	t.Init(t)
	return t
}

func (t *task) String() string {
	if t == nil {
		return "<nil>"
	}
	return t.name
}

// contents renders q as "i:[a b] j:[c]" for comparisons.
func contents(q *runq.Runq[task]) string {
	var b strings.Builder
	for i, qq := range q.All() {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:[", i)
		first := true
		for x := range qq.All() {
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(x.name)
		}
		b.WriteByte(']')
	}
	return b.String()
}

func TestZeroValueIsEmpty(t *testing.T) {
	var q runq.Runq[task]
	assert.True(t, q.Empty())
	assert.Equal(t, 0, q.Len())
	_, ok := q.Choose()
	assert.False(t, ok, "Choose on an empty Runq")
	for i := range runq.NumQueues {
		qq := q.Queue(runq.Index(i))
		if qq.Len() != 0 || qq.Front() != nil || qq.Back() != nil || !q.IsQueueEmpty(runq.Index(i)) {
			t.Fatalf("queue %d of the zero Runq is not empty", i)
		}
	}
}

func TestAddRemoveChoose(t *testing.T) {
	type step struct {
		op   string // "add", "head", "remove", "pop" (choose then remove)
		name string
		idx  runq.Index
		// want is the queue contents after the step; for "pop" chosen is the element expected;
		// for "remove" and "pop" emptied is the expected result of Remove.
		want    string
		chosen  string
		emptied bool
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"fifo within a queue", []step{
			{op: "add", name: "a", idx: 7, want: "7:[a]"},
			{op: "add", name: "b", idx: 7, want: "7:[a b]"},
			{op: "add", name: "c", idx: 7, want: "7:[a b c]"},
			{op: "pop", chosen: "a", want: "7:[b c]"},
			{op: "pop", chosen: "b", want: "7:[c]"},
			{op: "pop", chosen: "c", emptied: true, want: ""},
		}},
		{"lower index first", []step{
			{op: "add", name: "low", idx: 200, want: "200:[low]"},
			{op: "add", name: "high", idx: 3, want: "3:[high] 200:[low]"},
			{op: "add", name: "mid", idx: 64, want: "3:[high] 64:[mid] 200:[low]"},
			{op: "pop", chosen: "high", emptied: true, want: "64:[mid] 200:[low]"},
			{op: "pop", chosen: "mid", emptied: true, want: "200:[low]"},
		}},
		{"preempted thread goes back to the head", []step{
			{op: "add", name: "a", idx: 120, want: "120:[a]"},
			{op: "add", name: "b", idx: 120, want: "120:[a b]"},
			{op: "head", name: "p", idx: 120, want: "120:[p a b]"},
			{op: "pop", chosen: "p", want: "120:[a b]"},
		}},
		{"head on an empty queue", []step{
			{op: "head", name: "p", idx: 255, want: "255:[p]"},
			{op: "add", name: "a", idx: 255, want: "255:[p a]"},
		}},
		{"remove from the middle and the ends", []step{
			{op: "add", name: "a", idx: 0, want: "0:[a]"},
			{op: "add", name: "b", idx: 0, want: "0:[a b]"},
			{op: "add", name: "c", idx: 0, want: "0:[a b c]"},
			{op: "remove", name: "b", want: "0:[a c]"},
			{op: "remove", name: "c", want: "0:[a]"},
			{op: "remove", name: "a", emptied: true, want: ""},
			{op: "add", name: "b", idx: 0, want: "0:[b]"},
		}},
		{"queues at word boundaries", []step{
			{op: "add", name: "x63", idx: 63, want: "63:[x63]"},
			{op: "add", name: "x64", idx: 64, want: "63:[x63] 64:[x64]"},
			{op: "add", name: "x255", idx: 255, want: "63:[x63] 64:[x64] 255:[x255]"},
			{op: "remove", name: "x63", emptied: true, want: "64:[x64] 255:[x255]"},
			{op: "pop", chosen: "x64", emptied: true, want: "255:[x255]"},
			{op: "pop", chosen: "x255", emptied: true, want: ""},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var q runq.Runq[task]
			tasks := map[string]*task{}
			get := func(name string) *task {
				if tasks[name] == nil {
					tasks[name] = newTask(name)
				}
				return tasks[name]
			}
			n := 0
			for k, s := range tc.steps {
				switch s.op {
				case "add":
					q.Add(s.idx, &get(s.name).Link)
					n++
				case "head":
					q.AddHead(s.idx, &get(s.name).Link)
					n++
				case "remove":
					got := q.Remove(&get(s.name).Link)
					require.Equal(t, s.emptied, got, "step %d: Remove(%s)", k, s.name)
					n--
				case "pop":
					x, ok := q.Choose()
					require.True(t, ok, "step %d: Choose on a non-empty Runq", k)
					require.Equal(t, s.chosen, x.name, "step %d: Choose()", k)
					got := q.Remove(&x.Link)
					require.Equal(t, s.emptied, got, "step %d: Remove(%s)", k, x.name)
					n--
				}
				require.Equal(t, s.want, contents(&q), "step %d (%s %s)", k, s.op, s.name)
				require.Equal(t, n, q.Len(), "step %d: Len()", k)
				require.Equal(t, n == 0, q.Empty(), "step %d: Empty()", k)
			}
		})
	}
}

func TestLinkState(t *testing.T) {
	var q runq.Runq[task]
	x := newTask("x")
	assert.Same(t, x, x.Elem())
	_, queued := x.Index()
	assert.False(t, x.Queued())
	assert.False(t, queued)
	q.Add(42, &x.Link)
	i, queued := x.Index()
	assert.True(t, x.Queued())
	assert.True(t, queued)
	assert.Equal(t, runq.Index(42), i)
	q.Remove(&x.Link)
	assert.False(t, x.Queued())
	// A removed element can join again, at another index and on another Runq.
	var other runq.Runq[task]
	other.AddHead(7, &x.Link)
	got, ok := other.Choose()
	assert.True(t, ok)
	assert.Same(t, x, got)
}

func TestQueueAccessors(t *testing.T) {
	var q runq.Runq[task]
	a, b, c := newTask("a"), newTask("b"), newTask("c")
	q.Add(9, &a.Link)
	q.Add(9, &b.Link)
	q.Add(9, &c.Link)
	qq := q.Queue(9)
	assert.Equal(t, 3, qq.Len())
	assert.Same(t, a, qq.Front())
	assert.Same(t, c, qq.Back())
	var back []string
	for x := range qq.Backward() {
		back = append(back, x.name)
	}
	assert.Equal(t, []string{"c", "b", "a"}, back)
	x, ok := qq.FirstMatch(func(x *task) bool { return x.name != "a" })
	assert.True(t, ok)
	assert.Same(t, b, x)
	_, ok = qq.FirstMatch(func(*task) bool { return false })
	assert.False(t, ok)
	// Early exit from the iterators.
	for range qq.All() {
		break
	}
	for range q.All() {
		break
	}
	for range q.Elems() {
		break
	}
	st := q.Status()
	assert.Equal(t, "{9}", st.String())
}

// panics runs f and returns the value it panicked with, or fails t if it did not panic.
func panics(t *testing.T, f func()) (v any) {
	t.Helper()
	defer func() { v = recover() }()
	f()
	t.Fatalf("did not panic")
	return nil
}

// TestNilLinkIsARuntimePanic pins the one misuse that is not a "runq:" panic, by the decision
// Runq.Add documents: a nil *Link is dereferenced, and the runtime says so.
func TestNilLinkIsARuntimePanic(t *testing.T) {
	for name, f := range map[string]func(){
		"Add":     func() { var q runq.Runq[task]; q.Add(0, nil) },
		"AddHead": func() { var q runq.Runq[task]; q.AddHead(0, nil) },
		"Remove":  func() { var q runq.Runq[task]; q.Remove(nil) },
	} {
		t.Run(name, func(t *testing.T) {
			v := panics(t, f)
			if _, ok := v.(runtime.Error); !ok {
				t.Errorf("panic value = %#v, want the runtime's nil dereference", v)
			}
		})
	}
}

func TestMisusePanics(t *testing.T) {
	cases := []struct {
		name string
		f    func()
		want string // a prefix of the panic message
	}{
		{"Add of a queued element", func() {
			var q runq.Runq[task]
			x := newTask("x")
			q.Add(1, &x.Link)
			q.Add(2, &x.Link)
		}, "runq: Add of a queued or unbound element"},
		{"AddHead of a queued element", func() {
			var q runq.Runq[task]
			x := newTask("x")
			q.Add(1, &x.Link)
			q.AddHead(1, &x.Link)
		}, "runq: AddHead of a queued or unbound element"},
		{"Add of an element queued elsewhere", func() {
			var q, r runq.Runq[task]
			x := newTask("x")
			r.Add(1, &x.Link)
			q.Add(1, &x.Link)
		}, "runq: Add of a queued or unbound element"},
		{"Add of an unbound link", func() {
			var q runq.Runq[task]
			var x task
			q.Add(1, &x.Link)
		}, "runq: Add of a queued or unbound element"},
		{"Remove of an element never queued", func() {
			var q runq.Runq[task]
			q.Remove(&newTask("x").Link)
		}, "runq: Remove of an element not on this Runq"},
		{"Remove twice", func() {
			var q runq.Runq[task]
			x := newTask("x")
			q.Add(3, &x.Link)
			q.Remove(&x.Link)
			q.Remove(&x.Link)
		}, "runq: Remove of an element not on this Runq"},
		{"Remove from another Runq", func() {
			var q, r runq.Runq[task]
			x := newTask("x")
			r.Add(3, &x.Link)
			q.Remove(&x.Link)
		}, "runq: Remove of an element not on this Runq"},
		{"Init of a queued link", func() {
			var q runq.Runq[task]
			x := newTask("x")
			q.Add(3, &x.Link)
			x.Init(x)
		}, "runq: Link.Init of a queued element"},
		{"Find over an inverted range", func() {
			var q runq.Runq[task]
			q.Find(runq.Range{Lo: 5, Hi: 4}, func(runq.Index, *runq.Queue[task]) bool { return true })
		}, "runq: Find: inverted range 5..4"},
		{"FirstIn over an inverted range", func() {
			var q runq.Runq[task]
			q.FirstIn(runq.Range{Lo: 200, Hi: 100})
		}, "runq: Find: inverted range 200..100"},
		{"Steal over an inverted range", func() {
			var q runq.Runq[task]
			q.Steal(runq.Range{Lo: 1, Hi: 0}, func(*task) bool { return true })
		}, "runq: Find: inverted range 1..0"},
		{"FindCircular over an inverted range", func() {
			var q runq.Runq[task]
			q.FindCircular(runq.Range{Lo: 9, Hi: 8}, 9, func(runq.Index, *runq.Queue[task]) bool { return true })
		}, "runq: FindCircular: inverted range 9..8"},
		{"FindCircular from outside the range", func() {
			var q runq.Runq[task]
			q.FindCircular(runq.Range{Lo: 56, Hi: 223}, 224, func(runq.Index, *runq.Queue[task]) bool { return true })
		}, "runq: FindCircular: start outside the range 56..223"},
		{"Find with a nil predicate", func() {
			var q runq.Runq[task]
			q.Find(runq.FullRange(), nil)
		}, "runq: Find with a nil predicate"},
		{"FindCircular with a nil predicate", func() {
			var q runq.Runq[task]
			q.FindCircular(runq.FullRange(), 3, nil)
		}, "runq: Find with a nil predicate"},
		{"Steal with a nil predicate", func() {
			var q runq.Runq[task]
			q.Steal(runq.FullRange(), nil)
		}, "runq: Steal with a nil predicate"},
		{"Status.FirstIn over an inverted range", func() {
			var s runq.Status
			s.FirstIn(runq.Range{Lo: 2, Hi: 1})
		}, "runq: Status.FirstIn: inverted range 2..1"},
		{"Range.Len of an inverted range", func() {
			_ = runq.Range{Lo: 2, Hi: 1}.Len()
		}, "runq: Range.Len: inverted range 2..1"},
		{"Fold.Index with a zero fold", func() {
			runq.Fold(0).Index(3)
		}, "runq: Fold.Index: zero fold"},
		{"Fold.NumQueues with a zero fold", func() {
			runq.Fold(0).NumQueues()
		}, "runq: Fold.NumQueues: zero fold"},
		{"Fold.Range of an inverted priority range", func() {
			runq.LegacyFold.Range(47, 16)
		}, "runq: Fold.Range: inverted priority range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := panics(t, tc.f)
			msg, ok := v.(string)
			if !ok {
				t.Fatalf("panic value = %#v, want a string", v)
			}
			if !strings.HasPrefix(msg, tc.want) {
				t.Errorf("panic = %q, want prefix %q", msg, tc.want)
			}
		})
	}
}
