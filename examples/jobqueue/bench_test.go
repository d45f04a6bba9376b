package main

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// The two alternatives a Go programmer would otherwise write, with the same operations as
// Queue. Each job carries its priority; cancellation is measured separately, since the channel
// version cannot do it.

// heapQueue is container/heap behind a mutex, with a sequence number in every comparison so
// that equal priorities leave in submission order (a bare heap would not).
type heapQueue struct {
	mu       sync.Mutex
	nonEmpty sync.Cond
	h        jobHeap
	seq      uint64
}

type heapItem struct {
	job *Job
	seq uint64
	idx int
}

type jobHeap []*heapItem

func (h jobHeap) Len() int { return len(h) }
func (h jobHeap) Less(i, j int) bool {
	if h[i].job.Pri != h[j].job.Pri {
		return h[i].job.Pri < h[j].job.Pri
	}
	return h[i].seq < h[j].seq
}
func (h jobHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].idx = i; h[j].idx = j }
func (h *jobHeap) Push(x any)   { it := x.(*heapItem); it.idx = len(*h); *h = append(*h, it) }
func (h *jobHeap) Pop() any     { old := *h; it := old[len(old)-1]; *h = old[:len(old)-1]; return it }

func newHeapQueue() *heapQueue { q := &heapQueue{}; q.nonEmpty.L = &q.mu; return q }

func (q *heapQueue) Submit(j *Job) {
	q.mu.Lock()
	q.seq++
	heap.Push(&q.h, &heapItem{job: j, seq: q.seq})
	q.nonEmpty.Signal()
	q.mu.Unlock()
}

func (q *heapQueue) Take() *Job {
	q.mu.Lock()
	for len(q.h) == 0 {
		q.nonEmpty.Wait()
	}
	j := heap.Pop(&q.h).(*heapItem).job
	q.mu.Unlock()
	return j
}

// chanQueue is a buffered channel per priority level and a counting channel: Take waits for the
// count, then polls the levels from the most urgent. FIFO within a level; no cancellation.
type chanQueue struct {
	levels [256]chan *Job
	count  chan struct{}
}

func newChanQueue(capacity int) *chanQueue {
	q := &chanQueue{count: make(chan struct{}, capacity)}
	for i := range q.levels {
		q.levels[i] = make(chan *Job, capacity)
	}
	return q
}

func (q *chanQueue) Submit(j *Job) { q.levels[j.Pri] <- j; q.count <- struct{}{} }

func (q *chanQueue) Take() *Job {
	<-q.count
	for {
		for i := range q.levels {
			select {
			case j := <-q.levels[i]:
				return j
			default:
			}
		}
		// Submit puts the job on its level before counting it, so for every count taken
		// there is a job on some level; another taker may have taken the one this pass
		// missed, and then one it has not reached is there: poll again.
	}
}

type queueImpl interface {
	Submit(*Job)
	Take() *Job
}

type runqImpl struct{ *Queue }

func (q runqImpl) Take() *Job { j, _ := q.Queue.Take(); return j }

// BenchmarkQueue measures the steady state of a pool: queued jobs wait in the queue and each of
// `workers` goroutines takes the most urgent job and submits it again at a new random priority,
// so every operation is one Take and one Submit with the queue holding about `queued` jobs. The
// b.N operations are split among the workers; ns/op is wall time per Take+Submit pair.
func BenchmarkQueue(b *testing.B) {
	impls := []struct {
		name string
		mk   func(capacity int) queueImpl
	}{
		{"runq", func(int) queueImpl { return runqImpl{NewQueue()} }},
		{"heap", func(int) queueImpl { return newHeapQueue() }},
		{"chan", func(c int) queueImpl { return newChanQueue(c) }},
	}
	for _, workers := range []int{1, 2, 8} {
		for _, queued := range []int{16, 256, 4096} {
			for _, im := range impls {
				b.Run(fmt.Sprintf("impl=%s/workers=%d/queued=%d", im.name, workers, queued), func(b *testing.B) {
					b.ReportAllocs()
					q := im.mk(queued + workers)
					rng := rand.New(rand.NewPCG(1, 2))
					for range queued {
						q.Submit(NewJob("", uint8(rng.IntN(256)), nil))
					}
					pris := make([]uint8, 4096)
					for i := range pris {
						pris[i] = uint8(rng.IntN(256))
					}
					b.ResetTimer()
					var wg sync.WaitGroup
					for w := range workers {
						n := b.N / workers
						if w < b.N%workers {
							n++
						}
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := range n {
								j := q.Take()
								j.Pri = pris[(i+w*613)&4095]
								q.Submit(j)
							}
						}()
					}
					wg.Wait()
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
				})
			}
		}
	}
}

// BenchmarkCancel removes an arbitrary queued job and submits it again: O(1) on the run queue,
// O(log n) with index bookkeeping on the heap (the channel version cannot cancel).
func BenchmarkCancel(b *testing.B) {
	for _, queued := range []int{16, 256, 4096} {
		rng := rand.New(rand.NewPCG(3, 4))
		b.Run(fmt.Sprintf("impl=runq/queued=%d", queued), func(b *testing.B) {
			b.ReportAllocs()
			q := NewQueue()
			jobs := make([]*Job, queued)
			for i := range jobs {
				jobs[i] = NewJob("", uint8(rng.IntN(256)), nil)
				q.Submit(jobs[i])
			}
			i := 0
			for b.Loop() {
				j := jobs[i%queued]
				q.Cancel(j)
				q.Submit(j)
				i += 7
			}
		})
		b.Run(fmt.Sprintf("impl=heap/queued=%d", queued), func(b *testing.B) {
			b.ReportAllocs()
			q := newHeapQueue()
			for range queued {
				q.Submit(NewJob("", uint8(rng.IntN(256)), nil))
			}
			items := append([]*heapItem(nil), q.h...)
			i := 0
			for b.Loop() {
				it := items[i%queued]
				q.mu.Lock()
				heap.Remove(&q.h, it.idx)
				q.seq++
				it.seq = q.seq
				heap.Push(&q.h, it)
				q.mu.Unlock()
				i += 7
			}
		})
	}
}
