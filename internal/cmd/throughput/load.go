package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// loadGen runs a load against one URL from a process of its own.
type loadGen struct {
	kind     string // go, wrk or print
	conns    int
	threads  int // wrk's
	duration time.Duration
}

// result is what a load generator reports: the requests answered 200, the
// others and the failures, and how long the load lasted.
type result struct {
	Requests int64         `json:"requests"`
	Errors   int64         `json:"errors"`
	Elapsed  time.Duration `json:"elapsed"`
}

// check refuses an unknown kind, and wrk when it is missing.
func (lg loadGen) check() error {
	switch lg.kind {
	case "go":
		return nil
	case "wrk", "print":
		if _, err := exec.LookPath("wrk"); err != nil && lg.kind == "wrk" {
			return errNoWrk
		}
		return nil
	}
	return fmt.Errorf("-load %q: go, wrk or print", lg.kind)
}

// describe names the load generator for the table's heading.
func (lg loadGen) describe() string {
	if lg.kind == "wrk" {
		return fmt.Sprintf("wrk -t%d", lg.threads)
	}
	return "the Go load generator"
}

// run loads url for the generator's duration.
func (lg loadGen) run(url, key string) (result, error) {
	if lg.kind == "wrk" {
		return lg.runWrk(url, key)
	}
	self, err := os.Executable()
	if err != nil {
		return result{}, err
	}
	cmd := exec.Command(self, "-generate", url, "-key", key, "-conns", strconv.Itoa(lg.conns), "-duration", lg.duration.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("load generator: %w", err)
	}
	var res result
	if err := json.Unmarshal(out, &res); err != nil {
		return result{}, fmt.Errorf("load generator said %q: %w", out, err)
	}
	return res, nil
}

// wrkArgs is the wrk command that loads url.
func (lg loadGen) wrkArgs(url, key string) []string {
	args := []string{"wrk", "-t" + strconv.Itoa(lg.threads), "-c" + strconv.Itoa(lg.conns), "-d" + wrkDuration(lg.duration)}
	if key != "" {
		args = append(args, "-H", "'x-api-key: "+key+"'")
	}
	return append(args, url)
}

// wrkDuration writes d as wrk reads it: whole seconds.
func wrkDuration(d time.Duration) string {
	return strconv.Itoa(max(1, int(d.Round(time.Second)/time.Second))) + "s"
}

// Lines of wrk's report.
var (
	wrkTotal  = regexp.MustCompile(`(\d+) requests in ([0-9.]+)(us|ms|s|m)`)
	wrkNon2xx = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkSocket = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// runWrk loads url with wrk and reads its report.
func (lg loadGen) runWrk(url, key string) (result, error) {
	args := lg.wrkArgs(url, "")
	if key != "" {
		args = append(args[:len(args)-1], "-H", "x-api-key: "+key, url)
	}
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("wrk: %w: %s", err, out)
	}
	m := wrkTotal.FindSubmatch(out)
	if m == nil {
		return result{}, fmt.Errorf("wrk's report has no total: %s", out)
	}
	total, _ := strconv.ParseInt(string(m[1]), 10, 64)
	elapsed, err := time.ParseDuration(string(m[2]) + string(m[3]))
	if err != nil {
		return result{}, fmt.Errorf("wrk's duration: %w", err)
	}
	var bad int64
	if m := wrkNon2xx.FindSubmatch(out); m != nil {
		bad, _ = strconv.ParseInt(string(m[1]), 10, 64)
	}
	if m := wrkSocket.FindSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(string(s), 10, 64)
			bad += n
		}
	}
	return result{Requests: total - min(bad, total), Errors: bad, Elapsed: elapsed}, nil
}

// generateLoad sends GET requests to url from conns connections for d and
// prints how many got a 200.
func generateLoad(url, key string, conns int, d time.Duration) error {
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}
	client := &http.Client{Transport: tr}
	var ok, failed atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				if key != "" {
					req.Header.Set("x-api-key", key)
				}
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
		})
	}
	wg.Wait()
	return json.NewEncoder(os.Stdout).Encode(result{Requests: ok.Load(), Errors: failed.Load(), Elapsed: time.Since(start)})
}
