package contract

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLargeBody checks that the body of assume.payload-too-large, written
// out, is the JSON encoding of its object.
func TestLargeBody(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 1000} {
		want, err := json.Marshal(map[string]any{"description": strings.Repeat("x", n)})
		require.NoError(t, err)
		require.Equal(t, string(want), string(largeBody(n)))
	}
}
