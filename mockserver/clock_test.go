package mockserver_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// goBlockUntil runs c.BlockUntil(ctx, n) in its own goroutine; its outcome
// arrives on the channel.
func goBlockUntil(ctx context.Context, c *mockserver.FakeClock, n int) <-chan error {
	done := make(chan error, 1)
	go func() { done <- c.BlockUntil(ctx, n) }()
	return done
}

// wantNotReturned fails the test if the BlockUntil of done has returned.
func wantNotReturned(t *testing.T, done <-chan error, why string) {
	t.Helper()
	select {
	case err := <-done:
		require.FailNowf(t, "BlockUntil returned", "BlockUntil returned %v %s", err, why)
	default:
	}
}

func TestFakeClockBlockUntil(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	noop := func() {}

	t.Run("enough timers already", func(t *testing.T) {
		t.Parallel()
		c := mockserver.NewFakeClock(start)
		assert.NoError(t, c.BlockUntil(t.Context(), 0), "BlockUntil(0) on an idle clock")
		c.AfterFunc(time.Second, noop)
		c.AfterFunc(time.Hour, noop)
		for _, n := range []int{1, 2} {
			assert.NoError(t, c.BlockUntil(t.Context(), n), "BlockUntil(%d) with 2 timers", n)
		}
		assert.Equal(t, 2, c.Timers(), "Timers()")
	})

	t.Run("waits for AfterFunc", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			c := mockserver.NewFakeClock(start)
			done := goBlockUntil(t.Context(), c, 2)
			synctest.Wait() // the waiter is blocked
			wantNotReturned(t, done, "on an idle clock")

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
			wantNotReturned(t, done, "with 1 timer of the 2 it waits for")
			arm <- 2 * time.Second
			<-armed
			assert.NoError(t, <-done, "BlockUntil(2) once 2 timers are armed")
		})
	})

	t.Run("a timer of no duration is not waiting", func(t *testing.T) {
		t.Parallel()
		c := mockserver.NewFakeClock(start)
		ran := make(chan struct{})
		c.AfterFunc(0, func() { close(ran) })
		<-ran
		assert.Equal(t, 0, c.Timers(), "Timers() after AfterFunc(0)")
	})

	t.Run("stopped and fired timers no longer count", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			c := mockserver.NewFakeClock(start)
			fired := make(chan struct{})
			c.AfterFunc(time.Second, func() { close(fired) })
			stop := c.AfterFunc(time.Hour, noop)
			require.Equal(t, 2, c.Timers(), "Timers()")
			done := goBlockUntil(t.Context(), c, 3)
			synctest.Wait()
			wantNotReturned(t, done, "with 2 timers of 3")

			require.True(t, stop(), "stop() of a waiting timer")
			assert.False(t, stop(), "a second stop()")
			c.Advance(time.Second)
			<-fired
			assert.Equal(t, 0, c.Timers(), "Timers() after one stop and one fire")
			// Two more make two, not four: the waiter still waits.
			c.AfterFunc(time.Minute, noop)
			c.AfterFunc(time.Minute, noop)
			synctest.Wait()
			wantNotReturned(t, done, "with 2 timers waiting after one was stopped and one fired")
			c.AfterFunc(time.Minute, noop)
			assert.NoError(t, <-done, "BlockUntil(3) once 3 timers wait")
		})
	})

	t.Run("context canceled", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			c := mockserver.NewFakeClock(start)
			c.AfterFunc(time.Second, noop)
			ctx, cancel := context.WithCancel(t.Context())
			done := goBlockUntil(ctx, c, 2)
			synctest.Wait()
			wantNotReturned(t, done, "before its context ended")
			cancel()
			err := <-done
			require.ErrorIs(t, err, context.Canceled, "BlockUntil after cancel")
			assert.ErrorContains(t, err, "1 waiting", "the error must say how many timers were waiting (1)")
		})
	})

	t.Run("context deadline", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			c := mockserver.NewFakeClock(start)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			err := c.BlockUntil(ctx, 1)
			assert.ErrorIs(t, err, context.DeadlineExceeded, "BlockUntil past its deadline")
			assert.ErrorContains(t, err, "0 waiting", "BlockUntil past its deadline must give the count 0")
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
			waiters[i] = goBlockUntil(ctx, c, i+1)
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
			assert.NoError(t, <-done, "waiter for %d timers", i+1)
		}
		wg.Wait()
		close(stops)
		for stop := range stops {
			wg.Go(func() { stop() })
			wg.Go(func() { c.Advance(time.Second) })
		}
		wg.Wait()
		// The clock has moved 8s: every timer has fired or been stopped.
		assert.Equal(t, 0, c.Timers(), "Timers()")
	})
}
