package mockserver

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// hostileAnswer is an answer read off a raw connection.
type hostileAnswer struct {
	status int
	header http.Header
	body   []byte
}

// hostileRaw writes head (a request line and headers, without the final
// blank line) on a new connection to srv and reads one answer.
func hostileRaw(t testing.TB, srv *Server, method string, head string) hostileAnswer {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, head+"\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading the answer to %q: %v", head, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body of the answer to %q: %v", head, err)
	}
	return hostileAnswer{resp.StatusCode, resp.Header, b}
}

// hostileGet sends "METHOD target HTTP/1.1" with the server's key.
func hostileReq(t testing.TB, srv *Server, method, target string) hostileAnswer {
	t.Helper()
	return hostileRaw(t, srv, method, method+" "+target+" HTTP/1.1\r\nHost: mock\r\nX-Api-Key: "+srv.APIKey)
}

// hostileErr decodes the service's error body, or reports why it is not one.
func hostileErr(a hostileAnswer) (code string, status int, ok bool) {
	var e struct {
		Error *struct {
			Code    string `json:"code"`
			Status  int    `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(a.body, &e) != nil || e.Error == nil || e.Error.Code == "" || e.Error.Message == "" {
		return "", 0, false
	}
	return e.Error.Code, e.Error.Status, true
}
