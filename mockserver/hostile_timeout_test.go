package mockserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileReadHeaderTimeout: a client trickling its headers is cut off
// by WithReadHeaderTimeout; one that sent its headers at once and then
// holds its body past that timeout is not. The slow body is sent once
// the server has closed the slowloris connection, which it does only
// after the timeout has run out, so the two are ordered by that event.
func TestHostileReadHeaderTimeout(t *testing.T) {
	_, err := Start("127.0.0.1:0", WithReadHeaderTimeout(0))
	assert.Error(t, err, "Start accepted a read header timeout of 0, want it refused")
	srv, err := Start("127.0.0.1:0", WithReadHeaderTimeout(200*time.Millisecond))
	require.NoError(t, err, "Start")
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err, "dialling the server")
		// A safety net only: the test fails, not hangs, if nothing comes.
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		return c
	}

	// Headers promptly, body held back.
	slow := dial()
	defer slow.Close()
	body := `{"name":"slow body"}`
	head := "POST /v1/profiles HTTP/1.1\r\nHost: mock\r\nX-Api-Key: " + srv.APIKey +
		"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	_, err = io.WriteString(slow, head)
	require.NoError(t, err, "writing the slow request's headers")

	// Slowloris: headers a byte at a time, never finished.
	loris := dial()
	defer loris.Close()
	partial := "GET /v1/analyses/x HTTP/1.1\r\nHost: mock\r\nX-Api-Key: " + srv.APIKey + "\r\nX-Slow: "
	for i := range len(partial) {
		_, err := loris.Write([]byte{partial[i]})
		require.NoError(t, err, "byte %d", i)
	}
	got, err := io.ReadAll(loris)
	ne, ok := err.(net.Error)
	require.False(t, ok && ne.Timeout(), "the server never closed a connection whose headers never ended (read %q), want it closed", got)
	assert.NotContains(t, string(got), " 200 ", "the slowloris request was answered, want no answer")

	// The read header timeout has long run out: the body comes now.
	_, err = io.WriteString(slow, body)
	require.NoError(t, err, "the slow body's connection was cut, want it open")
	resp, err := http.ReadResponse(bufio.NewReader(slow), &http.Request{Method: "POST"})
	require.NoError(t, err, "no answer to a request whose body came after the read header timeout, want one")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	assert.True(t, resp.StatusCode < 500 && resp.Header.Get("X-Request-Id") != "", "the slow body's answer: %d %s, want no server error and a request ID", resp.StatusCode, b)
}
