package mockserver

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShapedWriterPacesAcrossWrites trickles an answer written in many
// small writes: the pauses are those its size needs at the rate, as for
// one large write, whichever way the handler writes it.
func TestShapedWriterPacesAcrossWrites(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		writes []int // the size of each write
		rate   int   // bytes per second; a tenth goes out per pause
		pauses int
	}{
		{"one write", []int{50}, 100, 4},
		{"byte by byte", []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 100, 2},
		{"writes across steps", []int{7, 7, 7, 7, 2}, 100, 2},
		{"within one step", []int{3, 4, 3}, 100, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clock := NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			rec := httptest.NewRecorder()
			w := &shapedWriter{ResponseWriter: rec, fault: Fault{BytesPerSecond: tt.rate}, clock: clock,
				ctx: httptest.NewRequest("GET", "/", nil)}
			done := make(chan int, 1)
			go func() {
				total := 0
				for _, n := range tt.writes {
					m, err := w.Write(make([]byte, n))
					assert.NoError(t, err)
					total += m
				}
				done <- total
			}()
			pauses := 0
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			for {
				waiting := make(chan error, 1)
				go func() { waiting <- clock.BlockUntil(ctx, 1) }()
				select {
				case total := <-done:
					assert.Equal(t, tt.pauses, pauses, "pauses of the writes %v at %d bytes/s", tt.writes, tt.rate)
					wantBytes := 0
					for _, n := range tt.writes {
						wantBytes += n
					}
					assert.Equal(t, wantBytes, total)
					assert.Equal(t, wantBytes, rec.Body.Len())
					cancel()
					<-waiting
					return
				case err := <-waiting:
					require.NoError(t, err, "the writer neither paused nor finished")
					pauses++
					clock.Advance(100 * time.Millisecond)
				}
			}
		})
	}
}
