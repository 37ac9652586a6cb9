package mockserver

import (
	"sort"
	"sync"
	"time"
)

// Clock is the server's source of time: timestamps, analysis durations and
// long-poll timeouts all come from it. The default is the real clock; a
// *FakeClock lets a test move time by hand.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed, unless the
	// returned stop function is called first; stop reports whether it
	// prevented the call.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// FakeClock is a Clock that moves only when told to: Advance fires, in
// order, every timer that falls due. It is safe for concurrent use.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    int
	timers map[int]*fakeTimer
}

type fakeTimer struct {
	at  time.Time
	seq int
	f   func()
}

// NewFakeClock returns a fake clock set to start.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start, timers: map[int]*fakeTimer{}}
}

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f to run when the clock has been advanced by d; with
// d of zero or less, f runs at once in its own goroutine, as with
// time.AfterFunc.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	if d <= 0 {
		go f()
		return func() bool { return false }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{at: c.now.Add(d), seq: c.seq, f: f}
	c.timers[t.seq] = t
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.timers[t.seq]
		delete(c.timers, t.seq)
		return ok
	}
}

// Advance moves the clock forward by d and runs every timer that falls due,
// earliest first, each in the calling goroutine with the clock set to its
// due time. Timers that those timers schedule within the window run too.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due []*fakeTimer
		for _, t := range c.timers {
			if !t.at.After(end) {
				due = append(due, t)
			}
		}
		if len(due) == 0 {
			c.now = end
			c.mu.Unlock()
			return
		}
		sort.Slice(due, func(i, j int) bool {
			if !due[i].at.Equal(due[j].at) {
				return due[i].at.Before(due[j].at)
			}
			return due[i].seq < due[j].seq
		})
		t := due[0]
		delete(c.timers, t.seq)
		if t.at.After(c.now) {
			c.now = t.at
		}
		c.mu.Unlock()
		t.f()
	}
}

// Set moves the clock to t (forward only), running the timers that fall
// due.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	d := t.Sub(c.now)
	c.mu.Unlock()
	if d > 0 {
		c.Advance(d)
	}
}
