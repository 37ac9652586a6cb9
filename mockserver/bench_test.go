//go:build unix

package mockserver_test

// Benchmarks of the mock server. Performance is measured here, as ratios
// against a baseline measured in the same run or as figures to compare with
// the limits, never asserted in tests: the machines that run the
// tests are shared.
//
//	go test -run '^$' -bench . -benchmem ./...
//
//   - BenchmarkThroughput: requests per second of GET /v1/analyses/{id} and
//     GET /v1/folders/{id} under 64 concurrent loopback clients, against a
//     bare net/http handler writing the same bytes (goal: mock/bare >= 0.80).
//   - BenchmarkLongPollWake: time from the mock completing an analysis to a
//     long poll returning (goal: p50 under 2 ms).
//   - BenchmarkLongPollHold: 10,000 long polls held on one mock, with the
//     mock's memory per waiter.
//   - BenchmarkMemory: the mock's memory per stored item and per analysis,
//     for 100,000 items.
//   - BenchmarkRender, in package mockserver/internal/report: PDF time and
//     size.
//
// Every benchmark also runs with -benchtime=1x, to check that it still
// works. The file is for unix systems: BenchmarkLongPollHold needs
// getrlimit and re-executes the test binary. Every helper here starts with
// "bench".

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// The documents of a typical analysis: a passport, a bank statement and a
// utility bill.
const (
	benchPassport  = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nAddress: 12 Harbour Road, Busan\n"
	benchStatement = "BANK STATEMENT\nAccount Holder: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAccount Number: 110-234-567890\nMonthly Income: 4200\n"
	benchBill      = "UTILITY BILL\nElectricity\nCustomer Name: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAmount Due: 84.20\n"
)

// benchTransport is a keep-alive transport for conns connections to one
// host.
func benchTransport(conns int) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = conns
	tr.MaxIdleConnsPerHost = conns
	return tr
}

// benchSDK returns an SDK client of srv over its own transport, closed when
// the benchmark ends.
func benchSDK(b *testing.B, srv *mockserver.Server) *profilesvc.Client {
	b.Helper()
	tr := benchTransport(8)
	b.Cleanup(tr.CloseIdleConnections)
	return srv.Client(profilesvc.WithHTTPClient(&http.Client{Transport: tr}))
}

// benchProfile creates a profile whose default folder holds the three
// documents of a typical analysis, then extra items of about 200 bytes;
// it returns the profile's ID, its default folder's ID and the documents'
// item IDs.
func benchProfile(b *testing.B, srv *mockserver.Server, extra int) (pid, fid string, docs []string) {
	b.Helper()
	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		b.Fatalf("CreateProfile: %v", err)
	}
	fid = p.DefaultFolder().ID
	for _, doc := range [][2]string{{"passport.txt", benchPassport}, {"bank_statement.txt", benchStatement}, {"utility_bill.txt", benchBill}} {
		it, err := srv.AddTextItem(fid, doc[0], doc[1])
		if err != nil {
			b.Fatalf("AddTextItem: %v", err)
		}
		docs = append(docs, it.ID)
	}
	for i := range extra {
		if _, err := srv.AddTextItem(fid, fmt.Sprintf("note_%d.txt", i), benchItemText(0, i+3)); err != nil {
			b.Fatalf("AddTextItem: %v", err)
		}
	}
	return p.ID, fid, docs
}

// benchItemText is a text item of 200 bytes: one of the three documents of
// person p, told apart by the item number j.
func benchItemText(p, j int) string {
	var s string
	switch j % 3 {
	case 0:
		s = fmt.Sprintf("PASSPORT\nFull Name: Person %06d\nDate of Birth: 1990-04-12\nPassport Number: X%07d\nExpiry Date: 2031-05-01\nAddress: %d Harbour Road, Busan\n", p, p*100+j, j)
	case 1:
		s = fmt.Sprintf("BANK STATEMENT\nAccount Holder: Person %06d\nAddress: %d Harbour Road, Busan\nAccount Number: 110-%06d-%03d\nMonthly Income: 4200\n", p, j, p, j)
	default:
		s = fmt.Sprintf("UTILITY BILL\nElectricity\nCustomer Name: Person %06d\nAddress: %d Harbour Road, Busan\nAmount Due: %d.20\n", p, j, j)
	}
	const size = 200
	if len(s) < size {
		s += "Notes: " + strings.Repeat("x", max(0, size-len(s)-8)) + "\n"
	}
	return s[:min(len(s), size)]
}

// benchStartAnalysis starts an analysis through the SDK.
func benchStartAnalysis(b *testing.B, c *profilesvc.Client, pid string, items []string) string {
	b.Helper()
	id, err := c.StartAnalysis(context.Background(), pid, profilesvc.StartAnalysisParams{ItemIDs: items})
	if err != nil {
		b.Fatalf("StartAnalysis: %v", err)
	}
	return id
}

// ---- Throughput ----

// benchClients is the number of concurrent loopback clients of the
// throughput benchmarks.
const benchClients = 64

// benchTarget is one server the load goes to.
type benchTarget struct {
	url     string
	key     string
	wantLen int64
	client  *http.Client
}

// get sends one GET and reads the whole answer.
func (t *benchTarget) get(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", t.key)
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return fmt.Errorf("GET %s: reading the answer: %w", t.url, err)
	}
	if resp.StatusCode != http.StatusOK || n != t.wantLen {
		return fmt.Errorf("GET %s: status %d with %d bytes, want 200 with %d", t.url, resp.StatusCode, n, t.wantLen)
	}
	return nil
}

// benchBatch sends total requests to t from workers goroutines and returns
// how long they took.
func benchBatch(t *benchTarget, workers, total int) (time.Duration, error) {
	ctx := context.Background()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	start := time.Now()
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(total) {
				if err := t.get(ctx); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), firstErr
}

// benchTargets returns the mock's path as a target, and a bare net/http
// server (httptest) that answers every request with the bytes and
// Content-Type the mock answered that path with, captured once. Each has
// its own transport with room for benchClients idle connections, warmed.
func benchTargets(b *testing.B, srv *mockserver.Server, path string) (mock, bare *benchTarget) {
	b.Helper()
	mockTr, bareTr := benchTransport(benchClients), benchTransport(benchClients)
	b.Cleanup(mockTr.CloseIdleConnections)
	b.Cleanup(bareTr.CloseIdleConnections)
	mock = &benchTarget{url: srv.URL + path, key: srv.APIKey, client: &http.Client{Transport: mockTr}}

	req, err := http.NewRequest(http.MethodGet, mock.url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := mock.client.Do(req)
	if err != nil {
		b.Fatalf("GET %s: %v", path, err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: status %d, %v: %.300s", path, resp.StatusCode, err, body)
	}
	contentType := resp.Header.Get("Content-Type")
	length := fmt.Sprint(len(body))
	bareSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Length", length)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}))
	b.Cleanup(bareSrv.Close)
	mock.wantLen = int64(len(body))
	bare = &benchTarget{url: bareSrv.URL + path, key: srv.APIKey, wantLen: int64(len(body)), client: &http.Client{Transport: bareTr}}

	for _, t := range []*benchTarget{mock, bare} {
		if _, err := benchBatch(t, benchClients, 4*benchClients); err != nil {
			b.Fatalf("warming up: %v", err)
		}
	}
	return mock, bare
}

// benchParallel measures one target with b.RunParallel, so that
// benchClients goroutines (at least) send requests, and reports req/s.
func benchParallel(b *testing.B, t *benchTarget) {
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((benchClients + procs - 1) / procs)
	b.ReportAllocs()
	var failed atomic.Bool
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if err := t.get(ctx); err != nil {
				if failed.CompareAndSwap(false, true) {
					b.Error(err)
				}
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// benchRatioBatch is the number of requests sent to each target per
// iteration of benchRatio.
const benchRatioBatch = 2000

// benchRatio measures the mock and the bare server in alternating batches
// of benchRatioBatch requests from benchClients goroutines (each iteration
// is one batch to each, the order alternating), so that both meet the same
// load on a shared machine, and reports each one's requests per second and
// mock/bare (the goal: at least 0.80).
func benchRatio(b *testing.B, mock, bare *benchTarget) {
	var mockTime, bareTime time.Duration
	for i := range b.N {
		order := []*benchTarget{mock, bare}
		if i%2 == 1 {
			order = []*benchTarget{bare, mock}
		}
		for _, t := range order {
			d, err := benchBatch(t, benchClients, benchRatioBatch)
			if err != nil {
				b.Fatal(err)
			}
			if t == mock {
				mockTime += d
			} else {
				bareTime += d
			}
		}
	}
	b.StopTimer()
	sent := float64(b.N * benchRatioBatch)
	mockRate, bareRate := sent/mockTime.Seconds(), sent/bareTime.Seconds()
	b.ReportMetric(mockRate, "mock-req/s")
	b.ReportMetric(bareRate, "bare-req/s")
	b.ReportMetric(mockRate/bareRate, "mock/bare")
}

// BenchmarkThroughput measures GET /v1/analyses/{id} (a completed typical
// analysis) and GET /v1/folders/{id} (a folder of 10 items) under 64
// concurrent loopback clients: the mock ("mock"), a bare net/http handler
// writing the same bytes ("bare"), and both in alternating batches
// ("ratio", which reports mock/bare; goal >= 0.80).
func BenchmarkThroughput(b *testing.B) {
	srv := mockserver.New(mockserver.WithManualAnalyses())
	b.Cleanup(srv.Close)
	pid, fid, docs := benchProfile(b, srv, 7)
	id := benchStartAnalysis(b, benchSDK(b, srv), pid, docs)
	if err := srv.CompleteAnalysis(id); err != nil {
		b.Fatalf("CompleteAnalysis: %v", err)
	}
	for _, ep := range []struct{ name, path string }{
		{"analysis", "/v1/analyses/" + id},
		{"folder", "/v1/folders/" + fid},
	} {
		mock, bare := benchTargets(b, srv, ep.path)
		b.Run(ep.name+"/mock", func(b *testing.B) { benchParallel(b, mock) })
		b.Run(ep.name+"/bare", func(b *testing.B) { benchParallel(b, bare) })
		b.Run(ep.name+"/ratio", func(b *testing.B) { benchRatio(b, mock, bare) })
	}
}

// ---- Long polls ----

// benchClock is the wall clock, instrumented: it counts the timers set
// (in manual mode only long polls set one: their timeout), signals each on
// held, and, while armed, records the time of the first reading. Armed
// just before CompleteAnalysis, that reading is the one the mock takes to
// stamp completedAt, under its lock, after the engine ran and just before
// it wakes the long polls: the moment the analysis completes.
type benchClock struct {
	armed atomic.Bool
	mark  atomic.Pointer[time.Time]
	polls atomic.Int64
	held  chan struct{}
}

func benchNewClock() *benchClock { return &benchClock{held: make(chan struct{}, 1)} }

func (c *benchClock) Now() time.Time {
	now := time.Now()
	if c.armed.Load() {
		c.mark.CompareAndSwap(nil, &now)
	}
	return now
}

func (c *benchClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.polls.Add(1)
	select {
	case c.held <- struct{}{}:
	default:
	}
	return time.AfterFunc(d, f).Stop
}

// arm starts recording the first reading.
func (c *benchClock) arm() {
	c.mark.Store(nil)
	c.armed.Store(true)
}

// disarm stops recording and returns the reading, or nil if none was
// taken.
func (c *benchClock) disarm() *time.Time {
	c.armed.Store(false)
	return c.mark.Load()
}

// benchWaiter waits for a completed analysis, as a client of the mock
// would.
type benchWaiter func(ctx context.Context, srv *mockserver.Server, c *profilesvc.Client, id string) error

// benchWaitSDK waits with WaitForAnalysis, whose first request is a long
// poll.
func benchWaitSDK(ctx context.Context, _ *mockserver.Server, c *profilesvc.Client, id string) error {
	a, err := c.WaitForAnalysis(ctx, id, nil)
	if err != nil {
		return err
	}
	if !a.Done() || a.Status != profilesvc.AnalysisCompleted {
		return fmt.Errorf("WaitForAnalysis returned %s, done %v", a.Status, a.Done())
	}
	return nil
}

// benchRawClient is the transport of the raw long polls.
var benchRawClient = &http.Client{Transport: benchTransport(8)}

// benchWaitRaw sends one long poll with net/http and reads its answer.
func benchWaitRaw(ctx context.Context, srv *mockserver.Server, _ *profilesvc.Client, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=120", nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := benchRawClient.Do(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"status":"completed"`)) {
		return fmt.Errorf("long poll: status %d: %.200s", resp.StatusCode, body)
	}
	return nil
}

// BenchmarkLongPollWake measures the time from the mock completing an
// analysis (its completedAt stamp, after the engine ran: see benchClock)
// to a long poll held on it returning, through the SDK's WaitForAnalysis
// ("sdk", which decodes the analysis) and with a raw GET ("raw"). Each
// iteration starts an analysis, waits until the poll is held, completes
// the analysis and waits for the poll: ns/op covers all of that. It
// reports the median and 99th percentile of the wake time (p50-ms,
// p99-ms; goal: p50 under 2 ms) and p50/limit (the median over 2 ms).
func BenchmarkLongPollWake(b *testing.B) {
	b.Run("sdk", func(b *testing.B) { benchWake(b, benchWaitSDK) })
	b.Run("raw", func(b *testing.B) { benchWake(b, benchWaitRaw) })
}

func benchWake(b *testing.B, wait benchWaiter) {
	clock := benchNewClock()
	srv := mockserver.New(mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	defer srv.Close()
	defer benchRawClient.CloseIdleConnections()
	c := benchSDK(b, srv)
	pid, _, docs := benchProfile(b, srv, 0)
	ctx := context.Background()
	type result struct {
		at  time.Time
		err error
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		id := benchStartAnalysis(b, c, pid, docs)
		select {
		case <-clock.held: // a stale signal
		default:
		}
		done := make(chan result, 1)
		go func() {
			err := wait(ctx, srv, c, id)
			done <- result{time.Now(), err}
		}()
		select {
		case <-clock.held:
		case r := <-done:
			b.Fatalf("the wait ended before the analysis completed: %v", r.err)
		case <-time.After(10 * time.Second):
			b.Fatal("the long poll was not held within 10s")
		}
		clock.arm()
		err := srv.CompleteAnalysis(id)
		mark := clock.disarm()
		if err != nil {
			b.Fatalf("CompleteAnalysis: %v", err)
		}
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			b.Fatal("the long poll did not return within 10s of the completion")
		}
		if r.err != nil {
			b.Fatal(r.err)
		}
		if mark == nil {
			b.Fatal("the mock did not read its clock when completing the analysis")
		}
		lat = append(lat, r.at.Sub(*mark))
	}
	b.StopTimer()
	slices.Sort(lat)
	p50 := lat[len(lat)/2]
	p99 := lat[min(len(lat)-1, len(lat)*99/100)]
	b.ReportMetric(benchMs(p50), "p50-ms")
	b.ReportMetric(benchMs(p99), "p99-ms")
	b.ReportMetric(benchMs(p50)/2, "p50/limit")
}

// benchMs converts d to milliseconds.
func benchMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchHoldWaiters is how many long polls BenchmarkLongPollHold holds.
const benchHoldWaiters = 10000

// benchFDMargin is the room left for the files a process opens besides
// the connections.
const benchFDMargin = 256

// benchHoldEnv, when set, makes BenchmarkLongPollHold the clients' side:
// it holds the value's long polls (a benchHoldSpec in JSON) and prints
// their outcome.
const benchHoldEnv = "PROFILESVC_BENCH_HOLD_CLIENTS"

// benchHoldSpec tells the clients' process what to hold.
type benchHoldSpec struct {
	URL, Key, ID string
	N            int
}

// benchFileLimit raises the soft limit of open files to the hard one and
// returns the limit in force.
func benchFileLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = raised.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
			return uint64(lim.Cur), err
		}
		lim = raised
	}
	return uint64(lim.Cur), nil
}

// BenchmarkLongPollHold holds 10,000 long polls (waitForReport=true,
// timeoutSeconds=300) on one mock, then completes the analysis and checks
// that every one returns it completed.
//
// The clients run in a child process (this test binary, re-executed with
// $PROFILESVC_BENCH_HOLD_CLIENTS set), so that each process needs one file
// per connection rather than two: 10,000 connections held in one process
// need 20,000 files and more, above a common hard limit of 20,000; it also
// keeps the clients' memory out of the mock's. If even that does not fit
// the limit, the number of polls is scaled down, with a log line.
//
// It reports the mock's memory per held poll after a GC (heap-B/waiter:
// HeapInuse; stack-B/waiter: StackInuse; goroutines/waiter), how long the
// polls took to be held (hold-all-ms, the child process's start and the
// dialling included) and the time from the completion to the last poll
// returning (wake-all-ms).
func BenchmarkLongPollHold(b *testing.B) {
	if spec := os.Getenv(benchHoldEnv); spec != "" {
		benchHoldClients(b, spec)
		return
	}
	n := benchHoldWaiters
	limit, err := benchFileLimit()
	if err != nil {
		b.Logf("open-file limit: %v", err)
	}
	if need := uint64(n + benchFDMargin); limit < need {
		n = int(limit) - benchFDMargin
		if n < 100 {
			b.Skipf("the open-file limit %d leaves no room for long polls", limit)
		}
		b.Logf("SCALED DOWN: holding %d long polls, not %d: the open-file limit is %d", n, benchHoldWaiters, limit)
	}
	var sum benchHoldResult
	for range b.N {
		r := benchHoldRun(b, n)
		sum.heap += r.heap
		sum.stack += r.stack
		sum.goroutines += r.goroutines
		sum.holdAll += r.holdAll
		sum.wakeAll += r.wakeAll
	}
	runs := float64(b.N)
	b.ReportMetric(float64(n), "waiters")
	b.ReportMetric(sum.heap/runs, "heap-B/waiter")
	b.ReportMetric(sum.stack/runs, "stack-B/waiter")
	b.ReportMetric(sum.goroutines/runs, "goroutines/waiter")
	b.ReportMetric(benchMs(sum.holdAll)/runs, "hold-all-ms")
	b.ReportMetric(benchMs(sum.wakeAll)/runs, "wake-all-ms")
}

// benchHoldResult is what one run of BenchmarkLongPollHold measured.
type benchHoldResult struct {
	heap, stack, goroutines float64 // per waiter
	holdAll, wakeAll        time.Duration
}

// benchHeapStats collects garbage and reads the memory statistics.
func benchHeapStats() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// benchHoldRun holds n long polls from a child process.
func benchHoldRun(b *testing.B, n int) benchHoldResult {
	b.Helper()
	clock := benchNewClock()
	srv := mockserver.New(mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	defer srv.Close()
	pid, _, docs := benchProfile(b, srv, 0)
	id := benchStartAnalysis(b, benchSDK(b, srv), pid, docs)
	spec, err := json.Marshal(benchHoldSpec{URL: srv.URL, Key: srv.APIKey, ID: id, N: n})
	if err != nil {
		b.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkLongPollHold$",
		"-test.benchtime=1x", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), benchHoldEnv+"="+string(spec))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out

	before := benchHeapStats()
	g0 := runtime.NumGoroutine()
	polls0 := clock.polls.Load()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting the clients' process: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	finished := false
	defer func() {
		if !finished {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	deadline := time.Now().Add(2 * time.Minute)
	for clock.polls.Load()-polls0 < int64(n) {
		select {
		case err := <-exited:
			finished = true
			b.Fatalf("the clients' process ended with %d of %d polls held: %v\n%s", clock.polls.Load()-polls0, n, err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d long polls held after 2 minutes", clock.polls.Load()-polls0, n)
		}
	}
	holdAll := time.Since(start)
	held := benchHeapStats()
	g1 := runtime.NumGoroutine()

	clock.arm()
	err = srv.CompleteAnalysis(id)
	mark := clock.disarm()
	if err != nil {
		b.Fatalf("CompleteAnalysis: %v", err)
	}
	select {
	case err = <-exited:
		finished = true
	case <-time.After(2 * time.Minute):
		b.Fatalf("the clients' process did not end within 2 minutes of the completion\n%s", out.String())
	}
	if err != nil {
		b.Fatalf("the clients' process failed: %v\n%s", err, out.String())
	}
	if mark == nil {
		b.Fatal("the mock did not read its clock when completing the analysis")
	}
	var ok, bad int
	var last int64
	var firstErr string
	found := false
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		line := sc.Text()
		if rest, has := strings.CutPrefix(line, "benchhold: "); has {
			if _, err := fmt.Sscanf(rest, "ok=%d bad=%d last=%d err=%q", &ok, &bad, &last, &firstErr); err != nil {
				b.Fatalf("reading %q: %v", line, err)
			}
			found = true
		}
	}
	if !found {
		b.Fatalf("the clients' process reported nothing:\n%s", out.String())
	}
	if ok != n || bad != 0 {
		b.Fatalf("%d of %d long polls returned the completed analysis, %d did not (first error: %s)", ok, n, bad, firstErr)
	}
	return benchHoldResult{
		heap:       float64(int64(held.HeapInuse)-int64(before.HeapInuse)) / float64(n),
		stack:      float64(int64(held.StackInuse)-int64(before.StackInuse)) / float64(n),
		goroutines: float64(g1-g0) / float64(n),
		holdAll:    holdAll,
		wakeAll:    time.Unix(0, last).Sub(*mark),
	}
}

// benchHoldClients is the clients' process: it holds spec's long polls,
// waits for all of them to return and prints
// "benchhold: ok=N bad=N last=UNIXNANO err=QUOTED".
func benchHoldClients(b *testing.B, raw string) {
	var spec benchHoldSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		b.Fatalf("$%s: %v", benchHoldEnv, err)
	}
	if limit, err := benchFileLimit(); err != nil || limit < uint64(spec.N+benchFDMargin) {
		b.Fatalf("the clients' open-file limit %d is below %d (%v)", limit, spec.N+benchFDMargin, err)
	}
	// Dial a few at a time, so that the listener's backlog never
	// overflows.
	dialing := make(chan struct{}, 128)
	dialer := &net.Dialer{Timeout: 30 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialing <- struct{}{}
			defer func() { <-dialing }()
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: spec.N,
		DisableCompression:  true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	url := spec.URL + "/v1/analyses/" + spec.ID + "?waitForReport=true&timeoutSeconds=300"
	var (
		ok, bad, last atomic.Int64
		errOnce       sync.Once
		firstErr      = ""
		wg            sync.WaitGroup
	)
	fail := func(err error) {
		bad.Add(1)
		errOnce.Do(func() { firstErr = err.Error() })
	}
	wg.Add(spec.N)
	for range spec.N {
		go func() {
			defer wg.Done()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				fail(err)
				return
			}
			req.Header.Set("x-api-key", spec.Key)
			resp, err := client.Do(req)
			if err != nil {
				fail(err)
				return
			}
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if err != nil {
				fail(err)
				return
			}
			if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"status":"completed"`)) {
				fail(fmt.Errorf("status %d: %.200s", resp.StatusCode, body))
				return
			}
			now := time.Now().UnixNano()
			for {
				prev := last.Load()
				if now <= prev || last.CompareAndSwap(prev, now) {
					break
				}
			}
			ok.Add(1)
		}()
	}
	wg.Wait()
	fmt.Printf("benchhold: ok=%d bad=%d last=%d err=%q\n", ok.Load(), bad.Load(), last.Load(), firstErr)
}

// ---- Memory ----

// BenchmarkMemory measures the mock's heap (HeapInuse after a GC) per
// stored item, for 100,000 text items of 200 bytes (1,000 profiles of 100
// items; bytes/item), per profile with its default folder and no items
// (bytes/profile), and per completed analysis of three of those items
// whose JSON has been read once, so that its cached encoding counts
// (bytes/analysis, over 500 analyses). HeapInuse counts whole spans, so
// it includes the fragmentation that the engine's garbage leaves around
// what the analyses keep; live-bytes/item and live-bytes/analysis are the
// same deltas of HeapAlloc, the live objects alone. The request record is off
// (WithRequestRecordSize(0)): it is bounded, and would otherwise count
// against the analyses, which are started over HTTP.
func BenchmarkMemory(b *testing.B) {
	const (
		profiles   = 1000
		perProfile = 100
		analyses   = 500
	)
	var perItem, perProf, perAnalysis, liveItem, liveAnalysis float64
	for range b.N {
		srv := mockserver.New(mockserver.WithManualAnalyses(), mockserver.WithRequestRecordSize(0))
		pids := make([]string, 0, profiles)
		fids := make([]string, 0, profiles)
		docs := make([][3]string, analyses)

		m0 := benchHeapStats()
		for i := range profiles {
			p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: fmt.Sprintf("Person %06d", i)})
			if err != nil {
				b.Fatalf("CreateProfile: %v", err)
			}
			pids = append(pids, p.ID)
			fids = append(fids, p.DefaultFolder().ID)
		}
		m1 := benchHeapStats()
		for i, fid := range fids {
			for j := range perProfile {
				it, err := srv.AddTextItem(fid, fmt.Sprintf("doc_%03d.txt", j), benchItemText(i, j))
				if err != nil {
					b.Fatalf("AddTextItem: %v", err)
				}
				if i < analyses && j < 3 {
					docs[i][j] = it.ID
				}
			}
		}
		m2 := benchHeapStats()
		tr := benchTransport(1)
		c := srv.Client(profilesvc.WithHTTPClient(&http.Client{Transport: tr}))
		for i := range analyses {
			id := benchStartAnalysis(b, c, pids[i], docs[i][:])
			if err := srv.CompleteAnalysis(id); err != nil {
				b.Fatalf("CompleteAnalysis: %v", err)
			}
			if a, ok := srv.Analysis(id); !ok || a.Status != profilesvc.AnalysisCompleted {
				b.Fatalf("analysis %s did not complete", id)
			}
		}
		tr.CloseIdleConnections()
		time.Sleep(20 * time.Millisecond) // the server's side of the connection closes
		m3 := benchHeapStats()
		runtime.KeepAlive(srv)
		srv.Close()

		perProf += float64(int64(m1.HeapInuse)-int64(m0.HeapInuse)) / profiles
		perItem += float64(int64(m2.HeapInuse)-int64(m1.HeapInuse)) / (profiles * perProfile)
		perAnalysis += float64(int64(m3.HeapInuse)-int64(m2.HeapInuse)) / analyses
		liveItem += float64(int64(m2.HeapAlloc)-int64(m1.HeapAlloc)) / (profiles * perProfile)
		liveAnalysis += float64(int64(m3.HeapAlloc)-int64(m2.HeapAlloc)) / analyses
	}
	runs := float64(b.N)
	b.ReportMetric(perItem/runs, "bytes/item")
	b.ReportMetric(perProf/runs, "bytes/profile")
	b.ReportMetric(perAnalysis/runs, "bytes/analysis")
	b.ReportMetric(liveItem/runs, "live-bytes/item")
	b.ReportMetric(liveAnalysis/runs, "live-bytes/analysis")
}

// BenchmarkNewClose measures starting and closing a mock server,
// mockserver.New()+Close(), against httptest.NewServer(h)+Close() with a
// bare handler, alternating one of each per iteration. It reports
// mock/httptest (goal: at most 2) and both times; the allocations are the
// pair's.
func BenchmarkNewClose(b *testing.B) {
	b.ReportAllocs()
	bare := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	var mockTime, bareTime time.Duration
	for b.Loop() {
		start := time.Now()
		srv := mockserver.New()
		srv.Close()
		mid := time.Now()
		ts := httptest.NewServer(bare)
		ts.Close()
		mockTime += mid.Sub(start)
		bareTime += time.Since(mid)
	}
	n := float64(b.N)
	b.ReportMetric(float64(mockTime.Microseconds())/n, "mock-µs")
	b.ReportMetric(float64(bareTime.Microseconds())/n, "httptest-µs")
	b.ReportMetric(float64(mockTime)/float64(bareTime), "mock/httptest")
}
