//go:build js && wasm

// Command wasm is the WebAssembly module of the course page: the simulator and the real
// policies, compiled with GOOS=js GOARCH=wasm, exposing three functions to the page's script.
//
//	schedkitLessons()            the lesson catalogue, as JSON
//	schedkitRunqTour()           the run-queue tour's steps (course.RunqTour), as JSON
//	schedkitRun(request JSON)    {workload, policy, topology, millis, seed} → a course.Run
//	                             as JSON, or {"error": "..."}
//	schedkitQuiz(seed, n)        n questions of the quiz of seed (examples/quiz/questions),
//	                             each with its choices, answer and the policy's reason, as JSON
//	schedkitState(i)             the policy's state after decision i of the last run
//	                             (course.Run.State), as JSON, or "null"
//
// The page draws what these return; it computes nothing about scheduling itself.
package main

import (
	"encoding/json"
	"syscall/js"
	"time"

	"github.com/schedkit/schedkit/examples/coursepage/course"
	"github.com/schedkit/schedkit/examples/quiz/questions"
)

type request struct {
	Workload string `json:"workload"`
	Policy   string `json:"policy"`
	Topology string `json:"topology"`
	Millis   int    `json:"millis"`
	Seed     uint64 `json:"seed"`
}

func reply(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return string(b)
}

// last is the run schedkitState reads.
var last *course.Run

func main() {
	js.Global().Set("schedkitLessons", js.FuncOf(func(js.Value, []js.Value) any {
		return reply(course.Lessons())
	}))
	js.Global().Set("schedkitRunqTour", js.FuncOf(func(js.Value, []js.Value) any {
		return reply(course.RunqTour())
	}))
	js.Global().Set("schedkitRun", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var req request
		if len(args) != 1 {
			return reply(map[string]string{"error": "schedkitRun takes one JSON argument"})
		}
		if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
			return reply(map[string]string{"error": "request: " + err.Error()})
		}
		run, err := course.Simulate(req.Workload, req.Policy, req.Topology, time.Duration(req.Millis)*time.Millisecond, req.Seed)
		if err != nil {
			last = nil
			return reply(map[string]string{"error": err.Error()})
		}
		last = run
		return reply(run)
	}))
	js.Global().Set("schedkitQuiz", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 2 || args[0].Type() != js.TypeNumber || args[1].Type() != js.TypeNumber {
			return reply(map[string]string{"error": "schedkitQuiz takes a seed and a count"})
		}
		seed, n := args[0].Float(), args[1].Int()
		if seed < 0 || seed != float64(uint64(seed)) || n < 1 || n > 100 {
			return reply(map[string]string{"error": "the quiz's seed must be a whole number ≥ 0 and its count 1..100"})
		}
		return reply(questions.Generate(uint64(seed), n))
	}))
	js.Global().Set("schedkitState", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if last == nil || len(args) != 1 || args[0].Type() != js.TypeNumber {
			return "null"
		}
		if st := last.State(args[0].Int()); st != nil {
			return string(st)
		}
		return "null"
	}))
	js.Global().Call("schedkitReady")
	select {} // keep the functions alive
}
