package mockserver_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestFakeClockBlockUntil(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	noop := func() {}

	t.Run("enough timers already", func(t *testing.T) {
		t.Parallel()
		c := mockserver.NewFakeClock(start)
		if err := c.BlockUntil(t.Context(), 0); err != nil {
			t.Errorf("BlockUntil(0) on an idle clock = %v, want nil", err)
		}
		c.AfterFunc(time.Second, noop)
		c.AfterFunc(time.Hour, noop)
		for _, n := range []int{1, 2} {
			if err := c.BlockUntil(t.Context(), n); err != nil {
				t.Errorf("BlockUntil(%d) with 2 timers = %v, want nil", n, err)
			}
		}
		if got := c.Timers(); got != 2 {
			t.Errorf("Timers() = %d, want 2", got)
		}
	})

	t.Run("waits for AfterFunc", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			c := mockserver.NewFakeClock(start)
			done := hBlockUntil(t.Context(), c, 2)
			synctest.Wait() // the waiter is blocked
			hNotReturned(t, done, "on an idle clock")

			// Timers armed from another goroutine, one at a time.
			arm := make(chan time.Duration)
			armed := make(chan struct{})
			go func() {
				for d := range arm {
					c.AfterFunc(d, noop)
					armed <- struct{}{}
				}
			}()
			defer close(arm)
			arm <- time.Second
			<-armed
			synctest.Wait()
			hNotReturned(t, done, "with 1 timer of the 2 it waits for")
			arm <- 2 * time.Second
			<-armed
			if err := <-done; err != nil {
				t.Errorf("BlockUntil(2) once 2 timers are armed = %v, want nil", err)
			}
		})
	})

	t.Run("a timer of no duration is not waiting", func(t *testing.T) {
		t.Parallel()
		c := mockserver.NewFakeClock(start)
		ran := make(chan struct{})
		c.AfterFunc(0, func() { close(ran) })
		<-ran
		if got := c.Timers(); got != 0 {
			t.Errorf("Timers() after AfterFunc(0) = %d, want 0", got)
		}
	})

	t.Run("stopped and fired timers no longer count", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			c := mockserver.NewFakeClock(start)
			fired := make(chan struct{})
			c.AfterFunc(time.Second, func() { close(fired) })
			stop := c.AfterFunc(time.Hour, noop)
			if got := c.Timers(); got != 2 {
				t.Fatalf("Timers() = %d, want 2", got)
			}
			done := hBlockUntil(t.Context(), c, 3)
			synctest.Wait()
			hNotReturned(t, done, "with 2 timers of 3")

			if !stop() {
				t.Fatal("stop() of a waiting timer = false, want true")
			}
			if stop() {
				t.Error("a second stop() = true, want false")
			}
			c.Advance(time.Second)
			<-fired
			if got := c.Timers(); got != 0 {
				t.Errorf("Timers() after one stop and one fire = %d, want 0", got)
			}
			// Two more make two, not four: the waiter still waits.
			c.AfterFunc(time.Minute, noop)
			c.AfterFunc(time.Minute, noop)
			synctest.Wait()
			hNotReturned(t, done, "with 2 timers waiting after one was stopped and one fired")
			c.AfterFunc(time.Minute, noop)
			if err := <-done; err != nil {
				t.Errorf("BlockUntil(3) once 3 timers wait = %v, want nil", err)
			}
		})
	})

	t.Run("context canceled", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			c := mockserver.NewFakeClock(start)
			c.AfterFunc(time.Second, noop)
			ctx, cancel := context.WithCancel(t.Context())
			done := hBlockUntil(ctx, c, 2)
			synctest.Wait()
			hNotReturned(t, done, "before its context ended")
			cancel()
			err := <-done
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("BlockUntil after cancel = %v, want an error matching context.Canceled", err)
			}
			if !strings.Contains(err.Error(), "1 waiting") {
				t.Errorf("error %q does not say how many timers were waiting (1)", err)
			}
		})
	})

	t.Run("context deadline", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			c := mockserver.NewFakeClock(start)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			err := c.BlockUntil(ctx, 1)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "0 waiting") {
				t.Errorf("BlockUntil past its deadline = %v, want context.DeadlineExceeded and the count 0", err)
			}
		})
	})

	t.Run("concurrent use", func(t *testing.T) {
		t.Parallel()
		// For the race detector: timers armed, stopped and fired from many
		// goroutines while others wait.
		const workers = 8
		c := mockserver.NewFakeClock(start)
		ctx := t.Context()
		waiters := make([]<-chan error, workers)
		for i := range waiters {
			waiters[i] = hBlockUntil(ctx, c, i+1)
		}
		stops := make(chan func() bool, workers)
		var wg sync.WaitGroup
		for i := range workers {
			wg.Go(func() {
				stops <- c.AfterFunc(time.Duration(i+1)*time.Second, noop)
				c.AfterFunc(time.Hour, noop)()
			})
		}
		for i, done := range waiters {
			if err := <-done; err != nil {
				t.Errorf("waiter for %d timers: %v", i+1, err)
			}
		}
		wg.Wait()
		close(stops)
		for stop := range stops {
			wg.Go(func() { stop() })
			wg.Go(func() { c.Advance(time.Second) })
		}
		wg.Wait()
		// The clock has moved 8s: every timer has fired or been stopped.
		if got := c.Timers(); got != 0 {
			t.Errorf("Timers() = %d, want 0", got)
		}
	})
}
