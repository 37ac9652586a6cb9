package mockserver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHostileReadHeaderTimeout: a client trickling its headers is cut off
// by WithReadHeaderTimeout; one that sent its headers at once and then
// holds its body past that timeout is not. No sleeps: the slow body is
// sent once the slowloris connection has been closed, an event that
// comes only after the timeout has run out.
func TestHostileReadHeaderTimeout(t *testing.T) {
	if _, err := Start("127.0.0.1:0", WithReadHeaderTimeout(0)); err == nil {
		t.Error("Start accepted a read header timeout of 0")
	}
	srv, err := Start("127.0.0.1:0", WithReadHeaderTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		// A safety net only: the test fails, not hangs, if nothing comes.
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		return c
	}

	// Headers promptly, body held back.
	slow := dial()
	defer slow.Close()
	body := `{"name":"slow body"}`
	head := "POST /v1/profiles HTTP/1.1\r\nHost: mock\r\nX-Api-Key: " + srv.APIKey +
		"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(slow, head); err != nil {
		t.Fatal(err)
	}

	// Slowloris: headers a byte at a time, never finished.
	loris := dial()
	defer loris.Close()
	partial := "GET /v1/analyses/x HTTP/1.1\r\nHost: mock\r\nX-Api-Key: " + srv.APIKey + "\r\nX-Slow: "
	for i := range len(partial) {
		if _, err := loris.Write([]byte{partial[i]}); err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
	}
	got, err := io.ReadAll(loris)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server never closed a connection whose headers never ended (read %q)", got)
	}
	if strings.Contains(string(got), " 200 ") {
		t.Errorf("the slowloris request was answered: %q", got)
	}

	// The read header timeout has long run out: the body comes now.
	if _, err := io.WriteString(slow, body); err != nil {
		t.Fatalf("the slow body's connection was cut: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(slow), &http.Request{Method: "POST"})
	if err != nil {
		t.Fatalf("no answer to a request whose body came after the read header timeout: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("the slow body's answer: %d %s", resp.StatusCode, b)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
