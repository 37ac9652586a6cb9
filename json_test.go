package profilesvc

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRawJSONPrintsAsText checks that printing a resource with %v or %+v
// shows its raw JSON as text, never as a list of byte values.
func TestRawJSONPrintsAsText(t *testing.T) {
	t.Parallel()
	var a Analysis
	require.NoError(t, json.Unmarshal([]byte(`{"id":"analysis_1","status":"completed","extractedData":{"review_result":{"final_action":"approve"}},"outputSchema":{"type":"object"}}`), &a))
	var p Profile
	require.NoError(t, json.Unmarshal([]byte(`{"id":"pf_1","name":"Jane"}`), &p))
	var it Item
	require.NoError(t, json.Unmarshal([]byte(`{"id":"item_1","type":"json","content":{"k":"v"}}`), &it))
	for _, v := range []any{a, &a, p, &p, it, &it} {
		for _, verb := range []string{"%v", "%+v", "%s"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, "[123 34", "%s of %T prints bytes: %s", verb, v, out)
			assert.Contains(t, out, `{"id":"`, "%s of %T", verb, v)
		}
	}
	assert.Contains(t, fmt.Sprintf("%+v", a), `ExtractedData:{"review_result":{"final_action":"approve"}}`)
	assert.Equal(t, `{"k":"v"}`, fmt.Sprint(it.Content))
	assert.Equal(t, `profilesvc.RawJSON("{\"k\":\"v\"}")`, fmt.Sprintf("%#v", it.Content))
	assert.Equal(t, "7b7d", fmt.Sprintf("%x", RawJSON(`{}`)))
	assert.Equal(t, `"{}"`, fmt.Sprintf("%q", RawJSON(`{}`)))
}
