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
//   - BenchmarkOpenAPICheck: what NewTest's check against api/openapi.yaml
//     costs an exchange, against the same mock unchecked.
//   - BenchmarkRender, in package mockserver/internal/report: PDF time and
//     size.
//
// Every benchmark also runs with -benchtime=1x, to check that it still
// works. The file is for unix systems: BenchmarkLongPollHold needs
// getrlimit and re-executes the test binary.

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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// The documents of a typical analysis: a passport, a bank statement and a
// utility bill.
const (
	typicalPassport  = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nAddress: 12 Harbour Road, Busan\n"
	typicalStatement = "BANK STATEMENT\nAccount Holder: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAccount Number: 110-234-567890\nMonthly Income: 4200\n"
	typicalBill      = "UTILITY BILL\nElectricity\nCustomer Name: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAmount Due: 84.20\n"
)

// keepAliveTransport is a keep-alive transport for conns connections to one
// host.
func keepAliveTransport(conns int) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = conns
	tr.MaxIdleConnsPerHost = conns
	return tr
}

// sdkClient returns an SDK client of srv over its own transport, closed when
// the benchmark ends.
func sdkClient(b *testing.B, srv *mockserver.Server) *profilesvc.Client {
	b.Helper()
	tr := keepAliveTransport(8)
	b.Cleanup(tr.CloseIdleConnections)
	return srv.Client(profilesvc.WithHTTPClient(&http.Client{Transport: tr}))
}

// typicalProfile creates a profile whose default folder holds the three
// documents of a typical analysis, then extra items of about 200 bytes;
// it returns the profile's ID, its default folder's ID and the documents'
// item IDs.
func typicalProfile(b *testing.B, srv *mockserver.Server, extra int) (pid, fid string, docs []string) {
	b.Helper()
	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	require.NoError(b, err, "CreateProfile")
	fid = p.DefaultFolder().ID
	for _, doc := range [][2]string{{"passport.txt", typicalPassport}, {"bank_statement.txt", typicalStatement}, {"utility_bill.txt", typicalBill}} {
		it, err := srv.AddTextItem(fid, doc[0], doc[1])
		require.NoError(b, err, "AddTextItem")
		docs = append(docs, it.ID)
	}
	for i := range extra {
		_, err := srv.AddTextItem(fid, fmt.Sprintf("note_%d.txt", i), itemText(0, i+3))
		require.NoError(b, err, "AddTextItem")
	}
	return p.ID, fid, docs
}

// itemText is a text item of 200 bytes: one of the three documents of
// person p, told apart by the item number j.
func itemText(p, j int) string {
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

// startBySDK starts an analysis through the SDK.
func startBySDK(b *testing.B, c *profilesvc.Client, pid string, items []string) string {
	b.Helper()
	id, err := c.StartAnalysis(context.Background(), pid, profilesvc.StartAnalysisParams{ItemIDs: items})
	require.NoError(b, err, "StartAnalysis")
	return id
}

// ---- Throughput ----

// loadClients is the number of concurrent loopback clients of the
// throughput benchmarks.
const loadClients = 64

// loadTarget is one server the load goes to.
type loadTarget struct {
	url     string
	key     string
	wantLen int64
	client  *http.Client
}

// get sends one GET and reads the whole answer.
func (t *loadTarget) get(ctx context.Context) error {
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

// sendBatch sends total requests to t from workers goroutines and returns
// how long they took.
func sendBatch(t *loadTarget, workers, total int) (time.Duration, error) {
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

// loadTargets returns the mock's path as a target, and a bare net/http
// server (httptest) that answers every request with the bytes and
// Content-Type the mock answered that path with, captured once. Each has
// its own transport with room for loadClients idle connections, warmed.
func loadTargets(b *testing.B, srv *mockserver.Server, path string) (mock, bare *loadTarget) {
	b.Helper()
	mockTr, bareTr := keepAliveTransport(loadClients), keepAliveTransport(loadClients)
	b.Cleanup(mockTr.CloseIdleConnections)
	b.Cleanup(bareTr.CloseIdleConnections)
	mock = &loadTarget{url: srv.URL + path, key: srv.APIKey, client: &http.Client{Transport: mockTr}}

	req, err := http.NewRequest(http.MethodGet, mock.url, nil)
	require.NoError(b, err)
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := mock.client.Do(req)
	require.NoError(b, err, "GET %s", path)
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.True(b, err == nil && resp.StatusCode == http.StatusOK, "GET %s: status %d, %v: %.300s", path, resp.StatusCode, err, body)
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
	bare = &loadTarget{url: bareSrv.URL + path, key: srv.APIKey, wantLen: int64(len(body)), client: &http.Client{Transport: bareTr}}

	for _, t := range []*loadTarget{mock, bare} {
		_, err := sendBatch(t, loadClients, 4*loadClients)
		require.NoError(b, err, "warming up")
	}
	return mock, bare
}

// measureParallel measures one target with b.RunParallel, so that
// loadClients goroutines (at least) send requests, and reports req/s.
func measureParallel(b *testing.B, t *loadTarget) {
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((loadClients + procs - 1) / procs)
	b.ReportAllocs()
	var failed atomic.Bool
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if err := t.get(ctx); err != nil {
				if failed.CompareAndSwap(false, true) {
					assert.NoError(b, err)
				}
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// ratioBatch is the number of requests sent to each target per
// iteration of measureRatio.
const ratioBatch = 2000

// measureRatio measures the mock and the bare server in alternating batches
// of ratioBatch requests from loadClients goroutines (each iteration
// is one batch to each, the order alternating), so that both meet the same
// load on a shared machine, and reports each one's requests per second and
// mock/bare (the goal: at least 0.80).
func measureRatio(b *testing.B, mock, bare *loadTarget) {
	var mockTime, bareTime time.Duration
	for i := range b.N {
		order := []*loadTarget{mock, bare}
		if i%2 == 1 {
			order = []*loadTarget{bare, mock}
		}
		for _, t := range order {
			d, err := sendBatch(t, loadClients, ratioBatch)
			require.NoError(b, err)
			if t == mock {
				mockTime += d
			} else {
				bareTime += d
			}
		}
	}
	b.StopTimer()
	sent := float64(b.N * ratioBatch)
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
	pid, fid, docs := typicalProfile(b, srv, 7)
	id := startBySDK(b, sdkClient(b, srv), pid, docs)
	require.NoError(b, srv.CompleteAnalysis(id), "CompleteAnalysis")
	for _, ep := range []struct{ name, path string }{
		{"analysis", "/v1/analyses/" + id},
		{"folder", "/v1/folders/" + fid},
	} {
		mock, bare := loadTargets(b, srv, ep.path)
		b.Run(ep.name+"/mock", func(b *testing.B) { measureParallel(b, mock) })
		b.Run(ep.name+"/bare", func(b *testing.B) { measureParallel(b, bare) })
		b.Run(ep.name+"/ratio", func(b *testing.B) { measureRatio(b, mock, bare) })
	}
}

// ---- Long polls ----

// wakeClock is the wall clock, instrumented: it counts the timers set
// (in manual mode only long polls set one: their timeout), signals each on
// held, closes the channel of expect once the count it waits for is
// reached, and, while armed, records the time of the first reading. Armed
// just before CompleteAnalysis, that reading is the one the mock takes to
// stamp completedAt, under its lock, after the engine ran and just before
// it wakes the long polls: the moment the analysis completes.
type wakeClock struct {
	armed atomic.Bool
	mark  atomic.Pointer[time.Time]
	polls atomic.Int64
	held  chan struct{}

	mu      sync.Mutex
	target  int64         // the count of polls allHeld waits for
	allHeld chan struct{} // closed when polls reaches target
}

func newWakeClock() *wakeClock { return &wakeClock{held: make(chan struct{}, 1)} }

// expect returns a channel closed once n more timers have been set.
func (c *wakeClock) expect(n int64) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.target = c.polls.Load() + n
	c.allHeld = make(chan struct{})
	if n <= 0 {
		close(c.allHeld)
	}
	return c.allHeld
}

func (c *wakeClock) Now() time.Time {
	now := time.Now()
	if c.armed.Load() {
		c.mark.CompareAndSwap(nil, &now)
	}
	return now
}

func (c *wakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	n := c.polls.Add(1)
	select {
	case c.held <- struct{}{}:
	default:
	}
	c.mu.Lock()
	if c.allHeld != nil && n == c.target {
		close(c.allHeld)
	}
	c.mu.Unlock()
	return time.AfterFunc(d, f).Stop
}

// arm starts recording the first reading.
func (c *wakeClock) arm() {
	c.mark.Store(nil)
	c.armed.Store(true)
}

// disarm stops recording and returns the reading, or nil if none was
// taken.
func (c *wakeClock) disarm() *time.Time {
	c.armed.Store(false)
	return c.mark.Load()
}

// waiter waits for a completed analysis, as a client of the mock
// would.
type waiter func(ctx context.Context, srv *mockserver.Server, c *profilesvc.Client, id string) error

// waitSDK waits with WaitForAnalysis, whose first request is a long
// poll.
func waitSDK(ctx context.Context, _ *mockserver.Server, c *profilesvc.Client, id string) error {
	a, err := c.WaitForAnalysis(ctx, id, nil)
	if err != nil {
		return err
	}
	if !a.Done() || a.Status != profilesvc.AnalysisCompleted {
		return fmt.Errorf("WaitForAnalysis returned %s, done %v", a.Status, a.Done())
	}
	return nil
}

// pollClient is the transport of the raw long polls.
var pollClient = &http.Client{Transport: keepAliveTransport(8)}

// waitRaw sends one long poll with net/http and reads its answer.
func waitRaw(ctx context.Context, srv *mockserver.Server, _ *profilesvc.Client, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=120", nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := pollClient.Do(req)
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
// analysis (its completedAt stamp, after the engine ran: see wakeClock)
// to a long poll held on it returning, through the SDK's WaitForAnalysis
// ("sdk", which decodes the analysis) and with a raw GET ("raw"). Each
// iteration starts an analysis, waits until the poll is held, completes
// the analysis and waits for the poll: ns/op covers all of that. It
// reports the median and 99th percentile of the wake time (p50-ms,
// p99-ms; goal: p50 under 2 ms) and p50/limit (the median over 2 ms).
func BenchmarkLongPollWake(b *testing.B) {
	b.Run("sdk", func(b *testing.B) { measureWake(b, waitSDK) })
	b.Run("raw", func(b *testing.B) { measureWake(b, waitRaw) })
}

func measureWake(b *testing.B, wait waiter) {
	clock := newWakeClock()
	srv := mockserver.New(mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	defer srv.Close()
	defer pollClient.CloseIdleConnections()
	c := sdkClient(b, srv)
	pid, _, docs := typicalProfile(b, srv, 0)
	ctx := context.Background()
	type result struct {
		at  time.Time
		err error
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		id := startBySDK(b, c, pid, docs)
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
			require.FailNowf(b, "the wait ended early", "the wait ended before the analysis completed: %v", r.err)
		case <-time.After(10 * time.Second):
			require.FailNow(b, "the long poll was not held within 10s")
		}
		clock.arm()
		err := srv.CompleteAnalysis(id)
		mark := clock.disarm()
		require.NoError(b, err, "CompleteAnalysis")
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			require.FailNow(b, "the long poll did not return within 10s of the completion")
		}
		require.NoError(b, r.err)
		require.NotNil(b, mark, "the mock did not read its clock when completing the analysis")
		lat = append(lat, r.at.Sub(*mark))
	}
	b.StopTimer()
	slices.Sort(lat)
	p50 := lat[len(lat)/2]
	p99 := lat[min(len(lat)-1, len(lat)*99/100)]
	b.ReportMetric(millis(p50), "p50-ms")
	b.ReportMetric(millis(p99), "p99-ms")
	b.ReportMetric(millis(p50)/2, "p50/limit")
}

// millis converts d to milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// holdWaiters is how many long polls BenchmarkLongPollHold holds.
const holdWaiters = 10000

// fdMargin is the room left for the files a process opens besides
// the connections.
const fdMargin = 256

// holdClientsEnv, when set, makes BenchmarkLongPollHold the clients' side:
// it holds the value's long polls (a holdSpec in JSON) and prints
// their outcome.
const holdClientsEnv = "PROFILESVC_BENCH_HOLD_CLIENTS"

// holdSpec tells the clients' process what to hold.
type holdSpec struct {
	URL, Key, ID string
	N            int
}

// raiseFileLimit raises the soft limit of open files to the hard one and
// returns the limit in force.
func raiseFileLimit() (uint64, error) {
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
	if spec := os.Getenv(holdClientsEnv); spec != "" {
		holdClients(b, spec)
		return
	}
	n := holdWaiters
	limit, err := raiseFileLimit()
	if err != nil {
		b.Logf("open-file limit: %v", err)
	}
	if need := uint64(n + fdMargin); limit < need {
		n = int(limit) - fdMargin
		if n < 100 {
			b.Skipf("the open-file limit %d leaves no room for long polls", limit)
		}
		b.Logf("SCALED DOWN: holding %d long polls, not %d: the open-file limit is %d", n, holdWaiters, limit)
	}
	var sum holdResult
	for range b.N {
		r := holdRun(b, n)
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
	b.ReportMetric(millis(sum.holdAll)/runs, "hold-all-ms")
	b.ReportMetric(millis(sum.wakeAll)/runs, "wake-all-ms")
}

// holdResult is what one run of BenchmarkLongPollHold measured.
type holdResult struct {
	heap, stack, goroutines float64 // per waiter
	holdAll, wakeAll        time.Duration
}

// heapStats collects garbage and reads the memory statistics.
func heapStats() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// holdRun holds n long polls from a child process.
func holdRun(b *testing.B, n int) holdResult {
	b.Helper()
	clock := newWakeClock()
	srv := mockserver.New(mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	defer srv.Close()
	pid, _, docs := typicalProfile(b, srv, 0)
	id := startBySDK(b, sdkClient(b, srv), pid, docs)
	spec, err := json.Marshal(holdSpec{URL: srv.URL, Key: srv.APIKey, ID: id, N: n})
	require.NoError(b, err)

	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkLongPollHold$",
		"-test.benchtime=1x", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), holdClientsEnv+"="+string(spec))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out

	before := heapStats()
	g0 := runtime.NumGoroutine()
	polls0 := clock.polls.Load()
	allHeld := clock.expect(int64(n))
	start := time.Now()
	require.NoError(b, cmd.Start(), "starting the clients' process")
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	finished := false
	defer func() {
		if !finished {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	select {
	case <-allHeld:
	case err := <-exited:
		finished = true
		require.FailNowf(b, "the clients' process ended early", "the clients' process ended with %d of %d polls held: %v\n%s", clock.polls.Load()-polls0, n, err, out.String())
	case <-time.After(2 * time.Minute):
		require.FailNowf(b, "the long polls were not all held", "only %d of %d long polls held after 2 minutes", clock.polls.Load()-polls0, n)
	}
	holdAll := time.Since(start)
	held := heapStats()
	g1 := runtime.NumGoroutine()

	clock.arm()
	err = srv.CompleteAnalysis(id)
	mark := clock.disarm()
	require.NoError(b, err, "CompleteAnalysis")
	select {
	case err = <-exited:
		finished = true
	case <-time.After(2 * time.Minute):
		require.FailNowf(b, "the clients' process did not end", "the clients' process did not end within 2 minutes of the completion\n%s", out.String())
	}
	require.NoError(b, err, "the clients' process failed:\n%s", out.String())
	require.NotNil(b, mark, "the mock did not read its clock when completing the analysis")
	var ok, bad int
	var last int64
	var firstErr string
	found := false
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		line := sc.Text()
		if rest, has := strings.CutPrefix(line, "benchhold: "); has {
			_, err := fmt.Sscanf(rest, "ok=%d bad=%d last=%d err=%q", &ok, &bad, &last, &firstErr)
			require.NoError(b, err, "reading %q", line)
			found = true
		}
	}
	require.True(b, found, "the clients' process reported nothing:\n%s", out.String())
	require.True(b, ok == n && bad == 0, "%d of %d long polls returned the completed analysis, %d did not (first error: %s)", ok, n, bad, firstErr)
	return holdResult{
		heap:       float64(int64(held.HeapInuse)-int64(before.HeapInuse)) / float64(n),
		stack:      float64(int64(held.StackInuse)-int64(before.StackInuse)) / float64(n),
		goroutines: float64(g1-g0) / float64(n),
		holdAll:    holdAll,
		wakeAll:    time.Unix(0, last).Sub(*mark),
	}
}

// holdClients is the clients' process: it holds spec's long polls,
// waits for all of them to return and prints
// "benchhold: ok=N bad=N last=UNIXNANO err=QUOTED".
func holdClients(b *testing.B, raw string) {
	var spec holdSpec
	require.NoError(b, json.Unmarshal([]byte(raw), &spec), "$%s", holdClientsEnv)
	limit, err := raiseFileLimit()
	require.True(b, err == nil && limit >= uint64(spec.N+fdMargin), "the clients' open-file limit %d is below %d (%v)", limit, spec.N+fdMargin, err)
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

		m0 := heapStats()
		for i := range profiles {
			p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: fmt.Sprintf("Person %06d", i)})
			require.NoError(b, err, "CreateProfile")
			pids = append(pids, p.ID)
			fids = append(fids, p.DefaultFolder().ID)
		}
		m1 := heapStats()
		for i, fid := range fids {
			for j := range perProfile {
				it, err := srv.AddTextItem(fid, fmt.Sprintf("doc_%03d.txt", j), itemText(i, j))
				require.NoError(b, err, "AddTextItem")
				if i < analyses && j < 3 {
					docs[i][j] = it.ID
				}
			}
		}
		m2 := heapStats()
		tr := keepAliveTransport(1)
		c := srv.Client(profilesvc.WithHTTPClient(&http.Client{Transport: tr}))
		for i := range analyses {
			id := startBySDK(b, c, pids[i], docs[i][:])
			require.NoError(b, srv.CompleteAnalysis(id), "CompleteAnalysis")
			a, ok := srv.Analysis(id)
			require.True(b, ok && a.Status == profilesvc.AnalysisCompleted, "analysis %s did not complete", id)
		}
		tr.CloseIdleConnections()
		// Close returns once the server's side of every connection is
		// closed: what the heap holds then is the state, which the
		// server keeps until it is gone.
		srv.Close()
		m3 := heapStats()
		runtime.KeepAlive(srv)

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

// BenchmarkOpenAPICheck measures what NewTest's check against
// api/openapi.yaml costs an exchange: GET /v1/analyses/{id} of a completed
// typical analysis, one request at a time, to a mock that checks it and
// to one that does not, alternating. It reports both times and
// checked/unchecked.
func BenchmarkOpenAPICheck(b *testing.B) {
	var reported atomic.Int64
	checked := mockserver.New(mockserver.WithManualAnalyses(), mockserver.WithOpenAPICheck(func(error) { reported.Add(1) }))
	b.Cleanup(checked.Close)
	unchecked := mockserver.New(mockserver.WithManualAnalyses())
	b.Cleanup(unchecked.Close)
	hc := &http.Client{Transport: keepAliveTransport(2)}
	b.Cleanup(hc.CloseIdleConnections)
	get := func(srv *mockserver.Server) func() error {
		pid, _, docs := typicalProfile(b, srv, 0)
		id := startBySDK(b, sdkClient(b, srv), pid, docs)
		require.NoError(b, srv.CompleteAnalysis(id), "CompleteAnalysis")
		return func() error {
			req, err := http.NewRequest("GET", srv.URL+"/v1/analyses/"+id, nil)
			if err != nil {
				return err
			}
			req.Header.Set("x-api-key", srv.APIKey)
			resp, err := hc.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				return err
			}
			if resp.StatusCode != 200 {
				return fmt.Errorf("GET analysis: %s", resp.Status)
			}
			return nil
		}
	}
	getChecked, getUnchecked := get(checked), get(unchecked)
	for range 20 { // warm the connections and the validator
		require.NoError(b, getChecked())
		require.NoError(b, getUnchecked())
	}
	b.ReportAllocs()
	var checkedTime, uncheckedTime time.Duration
	for b.Loop() {
		start := time.Now()
		require.NoError(b, getChecked())
		mid := time.Now()
		require.NoError(b, getUnchecked())
		checkedTime += mid.Sub(start)
		uncheckedTime += time.Since(mid)
	}
	require.Zero(b, reported.Load(), "the check reported a disagreement")
	n := float64(b.N)
	b.ReportMetric(float64(checkedTime.Microseconds())/n, "checked-µs")
	b.ReportMetric(float64(uncheckedTime.Microseconds())/n, "unchecked-µs")
	b.ReportMetric(float64(checkedTime)/float64(uncheckedTime), "checked/unchecked")
}
