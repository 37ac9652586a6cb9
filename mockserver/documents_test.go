package mockserver_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/api"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// TestDocumentsServedWithoutKey checks that the mock serves the OpenAPI
// documents, as embedded from api/, to anyone, and keeps the rest of the
// control API behind the key.
func TestDocumentsServedWithoutKey(t *testing.T) {
	srv := mockserver.NewTest(t)
	get := func(t *testing.T, method, path, key string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, nil)
		require.NoError(t, err)
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, body
	}
	documents := []struct {
		path string
		want []byte
	}{
		{"/_mock/openapi.yaml", api.OpenAPI()},
		{"/_mock/mock-control.yaml", api.MockControl()},
	}
	for _, d := range documents {
		t.Run(d.path, func(t *testing.T) {
			for _, key := range []string{"", "not-the-key", srv.APIKey} {
				resp, body := get(t, http.MethodGet, d.path, key)
				require.Equal(t, http.StatusOK, resp.StatusCode, "key %q: %s", key, body)
				require.Equal(t, "application/yaml", resp.Header.Get("Content-Type"))
				require.NotEmpty(t, resp.Header.Get("X-Request-Id"))
				require.Equal(t, string(d.want), string(body))
			}
			resp, body := get(t, http.MethodHead, d.path, "")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Empty(t, body)
			resp, _ = get(t, http.MethodGet, d.path+"?format=json", "")
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, "unknown query parameters are refused here too")
			resp, _ = get(t, http.MethodPost, d.path, "")
			require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "the documents are read, never written")
		})
	}
	resp, _ := get(t, http.MethodGet, "/_mock/workflows", "")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the rest of the control API needs the key")
	resp, _ = get(t, http.MethodGet, "/_mock/openapi.yml", "")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "only the documents' own paths are public")
	require.Empty(t, srv.Requests(), "the control API is not recorded")
}
