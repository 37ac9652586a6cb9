package mockserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// publicAnswer is what a test compares of two servers' answers.
type publicAnswer struct {
	Status        int
	Code          string
	ContentType   string
	ContentLength string
	Allow         string
	HasRequestID  bool
	Body          string
}

func (a publicAnswer) String() string {
	b := a.Body
	if len(b) > 120 {
		b = b[:120] + "…"
	}
	return fmt.Sprintf("%d %s [%s, length %s, Allow %q, request ID %v] %q", a.Status, a.Code, a.ContentType, a.ContentLength, a.Allow, a.HasRequestID, b)
}

// rawPublicAnswer sends one request, its target byte for byte as given, on a
// connection of its own, and reads the answer.
func rawPublicAnswer(t *testing.T, base, method, target, key string) publicAnswer {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute)) // a hang guard only
	req := method + " " + target + " HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n"
	if key != "" {
		req += "X-Api-Key: " + key + "\r\n"
	}
	_, err = io.WriteString(c, req+"\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	require.NoError(t, err, "%s %s", method, target)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	a := publicAnswer{
		Status:        resp.StatusCode,
		ContentType:   resp.Header.Get("Content-Type"),
		ContentLength: resp.Header.Get("Content-Length"),
		Allow:         resp.Header.Get("Allow"),
		HasRequestID:  resp.Header.Get("X-Request-Id") != "",
		Body:          string(body),
	}
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil {
		a.Code = e.Error.Code
	}
	return a
}

// mockAndProxy starts a simulating mock and a proxy in front of it
// that takes the mock's key as its own.
func mockAndProxy(t *testing.T) (*mockserver.Server, *mockserver.Proxy) {
	t.Helper()
	srv := newServer(t)
	p, err := mockserver.NewProxy(srv.URL, mockserver.WithProxyAPIKey(srv.APIKey))
	require.NoError(t, err, "NewProxy")
	t.Cleanup(p.Close)
	return srv, p
}

var publicMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "get", "Head", "PROPFIND"}

// The public routes of a proxy answer as those of a simulating mock do,
// whatever the method (HEAD included, with the GET's length and no body),
// the query (none, empty, unknown, malformed, given twice) and the key
// (none, the right one, a wrong one): the same status, code, content type,
// length and Allow header, each with a request ID; the bodies are the
// same but for the health route's, where a proxy says what it is.
func TestHostileProxyPublicRoutesAnswerAsTheMock(t *testing.T) {
	t.Parallel()
	srv, p := mockAndProxy(t)
	queries := []string{"", "?", "?&", "?=", "?a=1", "?a=1&a=2", "?%zz", "?a;b", "?verbose", "?%00"}
	for _, path := range []string{"/_mock/health", "/_mock/openapi.yaml", "/_mock/mock-control.yaml"} {
		for _, q := range queries {
			for _, m := range publicMethods {
				for _, key := range []string{"", srv.APIKey, "wrong-key"} {
					target := path + q
					mock := rawPublicAnswer(t, srv.URL, m, target, key)
					proxy := rawPublicAnswer(t, p.URL, m, target, key)
					assert.True(t, mock.HasRequestID, "mock: %s %s: no request ID", m, target)
					assert.True(t, proxy.HasRequestID, "proxy: %s %s: no request ID", m, target)
					assert.NotEqual(t, http.StatusInternalServerError, mock.Status, "mock: %s %s: %s", m, target, mock)
					if path == "/_mock/health" && mock.Status == http.StatusOK {
						assert.Equal(t, http.StatusOK, proxy.Status, "proxy: %s %s: %s, want the mock's %s", m, target, proxy, mock)
						assert.Equal(t, mock.ContentType, proxy.ContentType, "%s %s: content type", m, target)
						if m == "GET" {
							var h map[string]string
							require.NoError(t, json.Unmarshal([]byte(proxy.Body), &h), "the proxy's health: %s", proxy)
							assert.Equal(t, "proxy", h["mode"], "the proxy's health: %s", proxy)
						}
						continue
					}
					assert.Equal(t, mock, proxy, "%s %s (key %q): the proxy answers unlike the mock", m, target, key)
				}
			}
		}
	}
}

// The paths under /_mock/ next to the public routes (a trailing slash,
// an escaped letter or dot, a doubled slash, a dot segment) are no route
// of either server. Asked without a key, a simulating mock answers 401
// UNAUTHORIZED (it authenticates before it routes); a proxy should answer
// alike, but answers 404 NOT_FOUND: serveControl (proxy.go) looks the
// path up among the control routes before it checks the key. With the
// key, both answer 404.
func TestHostileProxyAnswersNearMissesOfPublicRoutesAsTheMock(t *testing.T) {
	t.Parallel()
	srv, p := mockAndProxy(t)
	for _, target := range []string{
		"/_mock/health/", "/_mock/openapi.yaml/", "/_mock/mock-control.yaml/", "/_mock/%68ealth",
		"/_mock/openapi%2Eyaml", "/_mock//health", "/_mock/./health", "/_mock/health%2F",
	} {
		for _, m := range []string{"GET", "HEAD"} {
			mock := rawPublicAnswer(t, srv.URL, m, target, "")
			proxy := rawPublicAnswer(t, p.URL, m, target, "")
			assert.Equal(t, mock.Status, proxy.Status, "%s %s without a key: mock %s, proxy %s", m, target, mock, proxy)
			// With the key, both say there is no such route.
			mock = rawPublicAnswer(t, srv.URL, m, target, srv.APIKey)
			proxy = rawPublicAnswer(t, p.URL, m, target, srv.APIKey)
			assert.Equal(t, http.StatusNotFound, mock.Status, "mock: %s %s: %s", m, target, mock)
			assert.Equal(t, http.StatusNotFound, proxy.Status, "proxy: %s %s: %s", m, target, proxy)
		}
	}
}
