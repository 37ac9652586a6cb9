package mockserver

import (
	"context"
	"fmt"
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
// order, every timer that falls due. BlockUntil lets a test wait until the
// server has armed the timers it expects (an analysis's run, a long poll's
// timeout) before it moves the clock. It is safe for concurrent use.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    int
	timers map[int]*fakeTimer
	// changed, made when BlockUntil waits, is closed (and a new one made
	// for the next wait) whenever the number of waiting timers changes.
	changed chan struct{}
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
	c.timersChangedLocked()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.timers[t.seq]; !ok {
			return false
		}
		delete(c.timers, t.seq)
		c.timersChangedLocked()
		return true
	}
}

// Timers returns how many timers are waiting on the clock: those set with
// AfterFunc that have neither fired nor been stopped.
func (c *FakeClock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// BlockUntil returns once at least n timers are waiting on the clock (as
// Timers counts them), so that a test moves the clock only after the
// server has armed what it is to fire: an Advance that comes first would
// leave the timer to fire a whole duration later. It returns ctx's error,
// wrapped with the number of timers waiting, if ctx ends first. It waits
// on the clock's changes, never by polling.
//
// A test of a timed analysis, started by the code under test (in the
// background, say), waits for the analysis's timers, then moves time:
//
//	clock := mockserver.NewFakeClock(start)
//	srv := mockserver.NewTest(t, mockserver.WithClock(clock), mockserver.WithAnalysisDuration(3*time.Second))
//	// ... the code under test starts the analysis
//	if err := clock.BlockUntil(ctx, 1); err != nil {
//		t.Fatal(err)
//	}
//	clock.Advance(3 * time.Second) // the analysis completes
//
// A long poll's timeout is a timer too: with WithManualAnalyses, where
// analyses arm none, BlockUntil(ctx, 1) returns once the server holds the
// poll.
func (c *FakeClock) BlockUntil(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		if len(c.timers) >= n {
			c.mu.Unlock()
			return nil
		}
		changed := c.changedLocked()
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d timers on the fake clock, %d waiting: %w", n, c.Timers(), ctx.Err())
		}
	}
}

// changedLocked returns the channel closed at the next change of the
// number of waiting timers.
func (c *FakeClock) changedLocked() chan struct{} {
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

// timersChangedLocked wakes the waiters of BlockUntil.
func (c *FakeClock) timersChangedLocked() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
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
		c.timersChangedLocked()
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
