// Package topk keeps the k best-scoring items of a stream: the bounded
// min-heap every ranking in citelens selects its hits with.
package topk

import "container/heap"

// Heap holds the k best items offered so far. The zero value is not
// usable; make one with New.
type Heap[T any] struct {
	k     int
	score func(T) float64
	items []T
}

// New returns a heap keeping the k best items by score.
func New[T any](k int, score func(T) float64) *Heap[T] {
	return &Heap[T]{k: k, score: score, items: make([]T, 0, min(k, 1024))}
}

// Full reports whether the heap holds k items, so an item must beat Min
// to get in.
func (h *Heap[T]) Full() bool { return len(h.items) >= h.k }

// Min is the lowest score kept; only meaningful when Full.
func (h *Heap[T]) Min() float64 {
	if len(h.items) == 0 {
		return 0
	}
	return h.score(h.items[0])
}

// Admits reports whether an item scoring s would be kept: a cheap test
// before building the item.
func (h *Heap[T]) Admits(s float64) bool { return h.k > 0 && (!h.Full() || s > h.Min()) }

// Offer keeps item if it is among the k best so far.
func (h *Heap[T]) Offer(item T) {
	switch {
	case h.k <= 0:
	case len(h.items) < h.k:
		heap.Push((*inner[T])(h), item)
	case h.score(item) > h.score(h.items[0]):
		h.items[0] = item
		heap.Fix((*inner[T])(h), 0)
	}
}

// Items returns the kept items in no particular order; the heap must not
// be used after.
func (h *Heap[T]) Items() []T { return h.items }

// inner is Heap seen by container/heap.
type inner[T any] Heap[T]

func (h *inner[T]) Len() int           { return len(h.items) }
func (h *inner[T]) Less(i, j int) bool { return h.score(h.items[i]) < h.score(h.items[j]) }
func (h *inner[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *inner[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *inner[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
