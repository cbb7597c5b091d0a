package simulator

import (
	"container/heap"
	"time"
)

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evStep eventKind = iota
	// evWake wakes the controller; index is the controller.Wake.
	evWake
	evRegistered
	evInitialized
	evSample
	evTraffic
	evArrival
	evDeparture
	evInterruption
)

// event is one thing due at a virtual time. ref names the node or pod it
// concerns; index is a step index and tick counts a repeating step's
// firings.
type event struct {
	at    time.Time
	seq   uint64
	kind  eventKind
	ref   string
	index int
	tick  int
}

// queue is a min-heap of events ordered by (time, sequence): a total order,
// since every event gets a fresh sequence number, so events due at the same
// instant fire in the order they were scheduled.
type queue struct {
	items []event
	seq   uint64
}

func (q *queue) Len() int { return len(q.items) }
func (q *queue) Less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}
func (q *queue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *queue) Push(x any)    { q.items = append(q.items, x.(event)) }
func (q *queue) Pop() any {
	last := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return last
}

// schedule adds an event.
func (q *queue) schedule(e event) {
	q.seq++
	e.seq = q.seq
	heap.Push(q, e)
}

// next removes and returns the earliest event.
func (q *queue) next() event { return heap.Pop(q).(event) }

// peek returns the earliest event's time.
func (q *queue) peek() time.Time { return q.items[0].at }
