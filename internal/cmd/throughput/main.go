// Command throughput measures what a request costs the mock server against
// a bare net/http server writing the same bytes: the CPU time of the
// server's process per request, its requests per second, and its
// allocations per request. Each server runs in a process of its own and
// the load comes from another, so that the figures are the server's alone
// and do not depend on the load generator.
//
//	go run ./internal/cmd/throughput [-load go|wrk|print] [-duration 5s] [-rounds 3] [-conns 64] [-threads 2] [-route NAME] [-cpuprofile DIR]
//
// It starts itself twice as a server: once as the mock (mockserver.Start,
// as the binary serves it, holding one completed analysis and one folder
// of ten items), once as a bare server answering GET /v1/analyses/{id}
// and GET /v1/folders/{id} with the mock's bytes and content type. Each
// server reads its own CPU time (getrusage RUSAGE_SELF: user and system)
// and allocations, and tells them on a control port of its own, apart
// from the port under load. For each route, rounds alternate between the
// two servers; a round reads the server's figures, runs the load, and
// reads them again, and the difference is divided by the requests the
// load generator had answered.
//
// The load comes from:
//
//   - go (the default): this command run as a load generator, with -conns
//     keep-alive connections;
//   - wrk: wrk -t THREADS -c CONNS -d DURATION, which must be on the PATH;
//   - print: nothing; the servers start and the command prints, for each
//     route and server, the wrk command to run and how to read the
//     server's CPU time before and after it, and serves until its input
//     ends (Ctrl-D) or it is interrupted.
//
// It prints, for each route, the CPU per request of each server and their
// ratio (mock/bare), the requests per second of each and their ratio, and
// the allocations per request of each. With -cpuprofile, each server
// writes a CPU profile of its life under load (mock.pprof, bare.pprof) to
// the directory, for go tool pprof -top; profiling costs CPU itself, so
// take the figures from a run without it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

func main() {
	var (
		serve    = flag.String("serve", "", "run as a server: mock or bare (used by the command itself)")
		from     = flag.String("from", "", "bare server: the mock whose answers it copies")
		paths    = flag.String("paths", "", "bare server: the comma-separated paths it answers")
		generate = flag.String("generate", "", "run as the Go load generator against this URL (used by the command itself)")
		key      = flag.String("key", "", "the API key sent to the mock")
		load     = flag.String("load", "go", "the load generator: go, wrk, or print (print the wrk commands and serve)")
		duration = flag.Duration("duration", 5*time.Second, "length of one round against one server")
		rounds   = flag.Int("rounds", 3, "rounds against each server, alternating")
		conns    = flag.Int("conns", 64, "concurrent connections of the load generator")
		threads  = flag.Int("threads", 2, "wrk's threads")
		profile  = flag.String("cpuprofile", "", "directory each server writes a CPU profile of its life to")
		only     = flag.String("route", "", "load only the routes whose name contains this, such as folders")
	)
	flag.Parse()
	var err error
	switch {
	case *serve != "":
		err = runServer(*serve, *from, *key, *paths, *profile)
	case *generate != "":
		err = generateLoad(*generate, *key, *conns, *duration)
	default:
		lg := loadGen{kind: *load, conns: *conns, threads: *threads, duration: *duration}
		err = measure(lg, *rounds, *profile, *only)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
		os.Exit(1)
	}
}

// child is a server started as a process of its own.
type child struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser // closing it stops the server
	hello
}

// startServer starts this command as a server and reads what it serves.
func startServer(name string, args ...string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, append([]string{"-serve", name}, args...)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{name: name, cmd: cmd, stdin: stdin}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &c.hello)
	}
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("%s server: %w", name, err)
	}
	return c, nil
}

// stop ends the server and waits for it, so that its profile is written.
func (c *child) stop() {
	_ = c.stdin.Close()
	_ = c.cmd.Wait()
}

// usage reads the server's CPU time and allocations so far.
func (c *child) usage() (usage, error) {
	var u usage
	resp, err := http.Get(c.Control + usagePath)
	if err != nil {
		return u, fmt.Errorf("%s server's usage: %w", c.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return u, fmt.Errorf("%s server's usage: %s", c.name, resp.Status)
	}
	return u, json.NewDecoder(resp.Body).Decode(&u)
}

// sample is what one round cost a server.
type sample struct {
	requests       int64
	elapsed, cpu   time.Duration
	mallocs, bytes uint64
}

func (s sample) cpuPerRequest() float64 { return float64(s.cpu) / float64(s.requests) }
func (s sample) rate() float64          { return float64(s.requests) / s.elapsed.Seconds() }

// tally is one server's figures on one route: its rounds, and their sum.
type tally struct {
	rounds []sample
	sum    sample
}

func (t *tally) add(s sample) {
	t.rounds = append(t.rounds, s)
	t.sum.requests += s.requests
	t.sum.elapsed += s.elapsed
	t.sum.cpu += s.cpu
	t.sum.mallocs += s.mallocs
	t.sum.bytes += s.bytes
}

func (t *tally) allocs() float64     { return float64(t.sum.mallocs) / float64(t.sum.requests) }
func (t *tally) allocBytes() float64 { return float64(t.sum.bytes) / float64(t.sum.requests) }

// medianRatio is the median over the rounds of f(mock's round) / f(bare's
// round): the rounds alternate, so that a change in the machine's load
// weighs on both sides of a pair alike.
func medianRatio(m, b *tally, f func(sample) float64) float64 {
	r := make([]float64, len(m.rounds))
	for i := range r {
		r[i] = f(m.rounds[i]) / f(b.rounds[i])
	}
	slices.Sort(r)
	if n := len(r); n%2 == 0 {
		return (r[n/2-1] + r[n/2]) / 2
	}
	return r[len(r)/2]
}

// measure starts the two servers and loads each route of each in turn.
func measure(lg loadGen, rounds int, profileDir, only string) error {
	if err := lg.check(); err != nil {
		return err
	}
	var profArgs []string
	if profileDir != "" {
		if err := os.MkdirAll(profileDir, 0o755); err != nil {
			return err
		}
		profArgs = []string{"-cpuprofile", profileDir}
	}
	mock, err := startServer("mock", profArgs...)
	if err != nil {
		return err
	}
	defer mock.stop()
	var paths []string
	for _, rt := range mock.Routes {
		paths = append(paths, rt.Path)
	}
	bare, err := startServer("bare", append(profArgs, "-from", mock.URL, "-key", mock.Key, "-paths", strings.Join(paths, ","))...)
	if err != nil {
		return err
	}
	defer bare.stop()
	if lg.kind == "print" {
		return printCommands(lg, mock, bare)
	}

	fmt.Printf("%d rounds of %v per server and route, load from %s, %d connections; servers and load in processes of their own\n",
		rounds, lg.duration, lg.describe(), lg.conns)
	fmt.Printf("%d CPUs, %s, %s\n\n", runtime.NumCPU(), cpuModel(), runtime.Version())
	fmt.Printf("%-24s %10s %10s %7s %7s   %10s %10s %7s   %15s %15s\n", "route", "mock CPU", "bare CPU", "ratio", "median", "mock req/s", "bare req/s", "median", "mock allocs", "bare allocs")
	for _, rt := range mock.Routes {
		if !strings.Contains(rt.Name, only) {
			continue
		}
		var m, b tally
		for i := range rounds {
			// Each goes first in every other round.
			first, second := &m, &b
			if i%2 == 1 {
				first, second = &b, &m
			}
			for _, t := range []*tally{first, second} {
				c := mock
				if t == &b {
					c = bare
				}
				s, err := round(lg, c, c.URL+rt.Path, mock.Key)
				if err != nil {
					return err
				}
				t.add(s)
			}
		}
		fmt.Printf("%-24s %8.1fµs %8.1fµs %7.2f %7.2f   %10.0f %10.0f %7.2f   %5.1f %7.0f B %5.1f %7.0f B\n", rt.Name,
			m.sum.cpuPerRequest()/1e3, b.sum.cpuPerRequest()/1e3, m.sum.cpuPerRequest()/b.sum.cpuPerRequest(),
			medianRatio(&m, &b, sample.cpuPerRequest), m.sum.rate(), b.sum.rate(), medianRatio(&m, &b, sample.rate),
			m.allocs(), m.allocBytes(), b.allocs(), b.allocBytes())
	}
	fmt.Println("\nCPU: the server process's user and system time per request answered, over all rounds; ratio: mock/bare of those;")
	fmt.Println("median: the median over the rounds of each round's mock/bare; allocs: allocations and bytes allocated per request")
	return nil
}

// round loads one server's route once and returns what it cost.
func round(lg loadGen, c *child, url, key string) (sample, error) {
	before, err := c.usage()
	if err != nil {
		return sample{}, err
	}
	res, err := lg.run(url, key)
	if err != nil {
		return sample{}, fmt.Errorf("%s %s: %w", c.name, url, err)
	}
	after, err := c.usage()
	if err != nil {
		return sample{}, err
	}
	if res.Requests == 0 || res.Errors > res.Requests/100 {
		return sample{}, fmt.Errorf("%s %s: %d requests, %d errors", c.name, url, res.Requests, res.Errors)
	}
	return sample{
		requests: res.Requests,
		elapsed:  res.Elapsed,
		cpu:      time.Duration(after.CPUNanos - before.CPUNanos),
		mallocs:  after.Mallocs - before.Mallocs,
		bytes:    after.AllocBytes - before.AllocBytes,
	}, nil
}

// printCommands prints what to run to measure the servers with wrk by
// hand, and serves until the input ends or the command is interrupted.
func printCommands(lg loadGen, mock, bare *child) error {
	fmt.Printf("For each command: read the server's CPU time, run wrk, read it again;\n")
	fmt.Printf("CPU per request = (cpuNanos after - cpuNanos before) / wrk's \"requests in\".\n\n")
	for _, rt := range mock.Routes {
		for _, c := range []*child{mock, bare} {
			fmt.Printf("# %s, %s\ncurl -s %s%s\n%s\ncurl -s %s%s\n\n", rt.Name, c.name, c.Control, usagePath,
				strings.Join(lg.wrkArgs(c.URL+rt.Path, mock.Key), " "), c.Control, usagePath)
		}
	}
	fmt.Println("Serving until the input ends (Ctrl-D) or an interrupt.")
	_, err := io.Copy(io.Discard, os.Stdin)
	return err
}

// cpuModel names the machine's processor, from /proc/cpuinfo where there
// is one.
func cpuModel() string {
	b, err := os.ReadFile(filepath.Join("/proc", "cpuinfo"))
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// errNoWrk says wrk is missing.
var errNoWrk = errors.New("wrk is not on the PATH: install it (apt-get install wrk) or use -load go")
