// Command throughput measures the mock server's throughput against a bare
// net/http server writing the same bytes, with the load coming from a
// separate process, so that the client's work and allocations do not hide
// the server's.
//
//	go run ./internal/cmd/throughput [-duration 5s] [-rounds 3] [-conns 64]
//
// It serves, in this process, a mock (one completed analysis, one folder
// of ten items) and a bare server answering each route with the mock's
// bytes, then runs itself as a load generator (-load) against one of them
// at a time, alternating, and prints for GET /v1/analyses/{id} and GET
// /v1/folders/{id} the requests per second of each, their ratio, and the
// allocations per request of this process while it served them.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func main() {
	var (
		load     = flag.String("load", "", "run as the load generator against this URL")
		key      = flag.String("key", "", "the API key the load generator sends")
		duration = flag.Duration("duration", 5*time.Second, "length of one round against one server")
		rounds   = flag.Int("rounds", 3, "rounds against each server, alternating")
		conns    = flag.Int("conns", 64, "concurrent connections of the load generator")
	)
	flag.Parse()
	var err error
	if *load != "" {
		err = generate(*load, *key, *conns, *duration)
	} else {
		err = measure(*duration, *rounds, *conns)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
		os.Exit(1)
	}
}

// result is what the load generator prints.
type result struct {
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
}

// generate sends GET requests to url from conns connections for d and
// prints how many got a 200.
func generate(url, key string, conns int, d time.Duration) error {
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	client := &http.Client{Transport: tr}
	var ok, failed atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				req.Header.Set("x-api-key", key)
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						failed.Add(1)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					ok.Add(1)
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return json.NewEncoder(os.Stdout).Encode(result{Requests: ok.Load(), Errors: failed.Load()})
}

// target is one server's route under load.
type target struct {
	name, url, key string
	requests       int64
	elapsed        time.Duration
	mallocs, bytes uint64
}

// measure serves the mock and the bare server and loads each in turn.
func measure(d time.Duration, rounds, conns int) error {
	srv := mockserver.New(mockserver.WithManualAnalyses(), mockserver.WithRequestRecordSize(1000))
	defer srv.Close()
	paths, err := arrange(srv)
	if err != nil {
		return err
	}
	bare, err := bareServer(srv, paths)
	if err != nil {
		return err
	}
	defer bare.Close()

	fmt.Printf("%d rounds of %v per server, %d connections, GOMAXPROCS %d, %s\n\n", rounds, d, conns, runtime.GOMAXPROCS(0), runtime.Version())
	fmt.Printf("%-28s %12s %12s %8s %14s %14s\n", "route", "mock req/s", "bare req/s", "ratio", "mock allocs/req", "bare allocs/req")
	for _, p := range paths {
		mock := &target{name: "mock", url: srv.URL + p.path, key: srv.APIKey}
		plain := &target{name: "bare", url: "http://" + bare.Addr + p.path}
		for range rounds {
			for _, t := range []*target{mock, plain} {
				if err := run(t, conns, d); err != nil {
					return err
				}
			}
		}
		mr, br := mock.rate(), plain.rate()
		fmt.Printf("%-28s %12.0f %12.0f %8.2f %14.1f %14.1f\n", p.name, mr, br, mr/br, mock.allocs(), plain.allocs())
	}
	return nil
}

func (t *target) rate() float64 { return float64(t.requests) / t.elapsed.Seconds() }
func (t *target) allocs() float64 {
	return float64(t.mallocs) / float64(t.requests)
}

// run loads t from a child process for d, adding the requests answered and
// this process's allocations to t.
func run(t *target, conns int, d time.Duration) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-load", t.url, "-key", t.key, "-conns", fmt.Sprint(conns), "-duration", d.String())
	cmd.Stderr = os.Stderr
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := cmd.Output()
	runtime.ReadMemStats(&after)
	if err != nil {
		return fmt.Errorf("load generator: %w", err)
	}
	var res result
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("load generator said %q: %w", out, err)
	}
	if res.Requests == 0 || res.Errors > res.Requests/100 {
		return fmt.Errorf("%s %s: %d requests, %d errors", t.name, t.url, res.Requests, res.Errors)
	}
	t.requests += res.Requests
	t.elapsed += d // the time it loaded the server, its start-up aside
	t.mallocs += after.Mallocs - before.Mallocs
	t.bytes += after.TotalAlloc - before.TotalAlloc
	return nil
}

// route is a path to load, with a name for the table.
type route struct{ name, path string }

// arrange creates a profile with a folder of ten items and a completed
// analysis of seven of them, as a typical client would read.
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

// bare is a plain net/http server.
type bare struct {
	*http.Server
	Addr string
}

// bareServer answers each route with the bytes and content type the mock
// gives for it, and nothing else.
func bareServer(srv *mockserver.Server, paths []route) (*bare, error) {
	answers := map[string][]byte{}
	for _, p := range paths {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+p.path, nil)
		req.Header.Set("x-api-key", srv.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, errors.Join(err, fmt.Errorf("GET %s: %d", p.path, resp.StatusCode))
		}
		answers[p.path] = body
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = w.Write(body)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.Serve(ln) }()
	return &bare{Server: s, Addr: ln.Addr().String()}, nil
}

// Close stops the bare server.
func (b *bare) Close() { _ = b.Server.Close() }
