package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// hello is what a server process prints when it is ready: where it
// serves, where it tells its usage, and the routes to load.
type hello struct {
	URL     string  `json:"url"`
	Control string  `json:"control"`
	Key     string  `json:"key,omitempty"`
	Routes  []route `json:"routes,omitempty"`
}

// route is a path to load, with a name for the table.
type route struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// usage is a server process's CPU time and allocations so far.
type usage struct {
	CPUNanos   int64  `json:"cpuNanos"`
	Mallocs    uint64 `json:"mallocs"`
	AllocBytes uint64 `json:"allocBytes"`
}

// usagePath is the control port's only route.
const usagePath = "/usage"

// runServer serves the mock or the bare server until its input ends,
// with its usage on a control port of its own.
func runServer(kind, from, key, paths, profileDir string) error {
	var (
		h    hello
		stop func()
		err  error
	)
	switch kind {
	case "mock":
		h, stop, err = serveMock()
	case "bare":
		h, stop, err = serveBare(from, key, strings.Split(paths, ","))
	default:
		err = fmt.Errorf("-serve %q: mock or bare", kind)
	}
	if err != nil {
		return err
	}
	defer stop()
	ctl, err := serveUsage()
	if err != nil {
		return err
	}
	defer ctl.Close()
	h.Control = "http://" + ctl.Addr
	if profileDir != "" {
		f, err := os.Create(filepath.Join(profileDir, kind+".pprof"))
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if err := json.NewEncoder(os.Stdout).Encode(h); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// serveMock starts the mock as the binary serves it, holding a profile
// with a folder of ten items and a completed analysis of seven of them,
// as a typical client would read.
func serveMock() (hello, func(), error) {
	srv, err := mockserver.Start("127.0.0.1:0", mockserver.WithManualAnalyses())
	if err != nil {
		return hello{}, nil, err
	}
	routes, err := arrange(srv)
	if err != nil {
		srv.Close()
		return hello{}, nil, err
	}
	return hello{URL: srv.URL, Key: srv.APIKey, Routes: routes}, srv.Close, nil
}

// arrange creates what the routes read.
func arrange(srv *mockserver.Server) ([]route, error) {
	ctx := context.Background()
	c := srv.Client()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		return nil, err
	}
	folder := p.DefaultFolder().ID
	var ids []string
	for i := range 10 {
		text := fmt.Sprintf("PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X12345%02d\nExpiry Date: 2031-05-01\n", i)
		it, err := c.CreateTextItem(ctx, folder, text, profilesvc.CreateItemParams{Name: fmt.Sprintf("document %d", i)})
		if err != nil {
			return nil, err
		}
		ids = append(ids, it.ID)
	}
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: ids[:7]})
	if err != nil {
		return nil, err
	}
	if err := srv.CompleteAnalysis(id); err != nil {
		return nil, err
	}
	return []route{
		{"GET /v1/analyses/{id}", "/v1/analyses/" + id},
		{"GET /v1/folders/{id}", "/v1/folders/" + folder},
	}, nil
}

// serveBare starts a plain net/http server that answers each path with
// the bytes and content type the mock at from gives for it, and nothing
// else.
func serveBare(from, key string, paths []string) (hello, func(), error) {
	type answer struct {
		body   []byte
		length string
	}
	answers := map[string]answer{}
	for _, p := range paths {
		body, err := fetch(from+p, key)
		if err != nil {
			return hello{}, nil, err
		}
		answers[p] = answer{body, strconv.Itoa(len(body))}
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", a.length)
		_, _ = w.Write(a.body)
	})
	s, addr, err := listen(h)
	if err != nil {
		return hello{}, nil, err
	}
	return hello{URL: "http://" + addr}, func() { _ = s.Close() }, nil
}

// fetch returns the body of a 200 answer to GET url.
func fetch(url, key string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, errors.Join(err, fmt.Errorf("GET %s: %s", url, resp.Status))
	}
	return body, nil
}

// listen serves h on a loopback port.
func listen(h http.Handler) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.Serve(ln) }()
	return s, ln.Addr().String(), nil
}

// control is the server process's control port.
type control struct {
	*http.Server
	Addr string
}

// serveUsage serves the process's usage on a port of its own.
func serveUsage() (*control, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+usagePath, func(w http.ResponseWriter, r *http.Request) {
		cpu, err := processCPU()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(usage{CPUNanos: cpu.Nanoseconds(), Mallocs: ms.Mallocs, AllocBytes: ms.TotalAlloc})
	})
	s, addr, err := listen(mux)
	if err != nil {
		return nil, err
	}
	return &control{Server: s, Addr: addr}, nil
}

// Close stops the control port.
func (c *control) Close() { _ = c.Server.Close() }
