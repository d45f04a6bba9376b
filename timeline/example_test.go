package timeline_test

import (
	"fmt"

	"github.com/schedkit/schedkit/timeline"
)

func Example() {
	type job struct {
		node timeline.Node[job]
		name string
	}
	var tl timeline.Timeline[job]
	for i, name := range []string{"c", "a", "b", "a2"} {
		j := &job{name: name}
		j.node.Init(j)
		tl.Insert(&j.node, []uint64{30, 10, 20, 10}[i])
	}
	var names []string
	for j := range tl.All() {
		names = append(names, j.name)
	}
	fmt.Println(names)
	fmt.Println(tl.PopFirst().Value().name, tl.First().Value().name, tl.Len())
	// Output:
	// [a a2 b c]
	// a a2 3
}

// Keys compare wrap-around aware, as the kernel compares vruntimes: 2^64-10 is before 5.
func ExampleTimeline_Insert() {
	type task struct {
		node timeline.Node[task]
		name string
	}
	var tl timeline.Timeline[task]
	for i, name := range []string{"after the wrap", "before the wrap"} {
		t := &task{name: name}
		t.node.Init(t)
		tl.Insert(&t.node, []uint64{5, ^uint64(0) - 9}[i])
	}
	fmt.Println(tl.First().Value().name)
	// Output: before the wrap
}

func ExampleTimeline_EnableAugment() {
	type req struct {
		node timeline.Node[req]
		name string
	}
	var tl timeline.Timeline[req]
	tl.EnableAugment()
	for i, name := range []string{"x", "y", "z"} {
		r := &req{name: name}
		r.node.Init(r)
		r.node.SetAug([]uint64{700, 300, 500}[i]) // say, deadlines
		tl.Insert(&r.node, uint64(i))             // ordered by, say, vruntime
	}
	fmt.Println(tl.Root().AugMin())
	// Output: 300
}

// A timeline whose augmented values change in place, as v6.6 changes a queued entity's deadline
// when its weight changes.
func ExampleTimeline_UpdateAug() {
	type job struct {
		node timeline.Node[job]
		name string
	}
	var tl timeline.Timeline[job]
	tl.EnableAugment()
	jobs := []*job{{name: "a"}, {name: "b"}, {name: "c"}}
	for i, j := range jobs {
		j.node.Init(j)
		j.node.SetAug(uint64(100 * (i + 1)))
		tl.Insert(&j.node, uint64(i))
	}
	fmt.Println(tl.Root().AugMin(), tl.Last().Value().name)
	tl.UpdateAug(&jobs[2].node, 5)
	fmt.Println(tl.Root().AugMin())
	// Output:
	// 100 c
	// 5
}

// The pop of a scheduler's pattern: the leftmost entity runs, then goes back further right.
func ExampleTimeline_PopFirst() {
	type entity struct {
		node     timeline.Node[entity]
		name     string
		vruntime uint64
	}
	var tl timeline.Timeline[entity]
	for i, name := range []string{"a", "b", "c"} {
		e := &entity{name: name, vruntime: uint64(i)}
		e.node.Init(e)
		tl.Insert(&e.node, e.vruntime)
	}
	for range 4 {
		e := tl.PopFirst().Value()
		fmt.Print(e.name, " ")
		e.vruntime += 10 // it ran
		tl.Insert(&e.node, e.vruntime)
	}
	fmt.Println()
	// Output: a b c a
}

func ExampleNode_Next() {
	type item struct {
		node timeline.Node[item]
		key  uint64
	}
	var tl timeline.Timeline[item]
	for _, k := range []uint64{3, 1, 2} {
		it := &item{key: k}
		it.node.Init(it)
		tl.Insert(&it.node, k)
	}
	for n := tl.First(); n != nil; n = n.Next() {
		fmt.Print(n.Key(), " ")
	}
	fmt.Println()
	// Output: 1 2 3
}
