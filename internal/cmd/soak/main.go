// Command soak drives the profilesvc-mock binary with mixed traffic for a
// given time and prints, every few seconds, what the traffic did and the
// binary's memory and goroutines, so that a leak shows as a number that
// keeps growing.
//
//	go run ./internal/cmd/soak [-duration 60s] [-interval 5s] [-workers 8]
//
// It builds the binary, starts it on a free port with -stats, and runs
// workers that each loop over a whole workflow (create a profile, upload a
// file and add a text, analyse them, wait, download a report, delete the
// profile), beside clients that abandon long polls and clients with wrong
// keys and large bodies. It stops the binary at the end.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

const soakKey = "9d8c7b6a-5f4e-4d3c-8b2a-190807060504"

func main() {
	duration := flag.Duration("duration", 60*time.Second, "how long to drive the binary")
	interval := flag.Duration("interval", 5*time.Second, "how often to print")
	workers := flag.Int("workers", 8, "clients running whole workflows")
	flag.Parse()
	if err := soak(*duration, *interval, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// counts are what the traffic did.
type counts struct {
	workflows, abandoned, wrongKeys, failures atomic.Int64
}

func soak(duration, interval time.Duration, workers int) error {
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "profilesvc-mock")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/profilesvc-mock").CombinedOutput(); err != nil {
		return fmt.Errorf("building the binary: %v: %s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-api-key", soakKey, "-analysis-duration", "200ms", "-stats", interval.String())
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	url, err := listeningOn(stdout)
	if err != nil {
		return err
	}
	var c counts
	start := time.Now()
	go relayStats(stderr, start, &c)

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	client, err := profilesvc.NewClient(profilesvc.WithBaseURL(url), profilesvc.WithAPIKey(soakKey))
	if err != nil {
		return err
	}
	held, err := endlessAnalysis(ctx, client)
	if err != nil {
		return err
	}
	fmt.Printf("soak: %v against %s, %d workers, a line each %v\n", duration, url, workers, interval)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() { defer wg.Done(); loop(ctx, func() error { return workflow(ctx, client) }, &c.workflows, &c) }()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		loop(ctx, func() error { return abandonPoll(ctx, client, held) }, &c.abandoned, &c)
	}()
	go func() { defer wg.Done(); loop(ctx, func() error { return wrongKey(ctx, url) }, &c.wrongKeys, &c) }()
	wg.Wait()
	fmt.Printf("soak: done after %v: %d workflows, %d abandoned long polls, %d wrong-key requests, %d failures\n",
		time.Since(start).Round(time.Second), c.workflows.Load(), c.abandoned.Load(), c.wrongKeys.Load(), c.failures.Load())
	return nil
}

// listeningOn reads the binary's address from its first lines.
func listeningOn(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return url, nil
		}
	}
	return "", errors.New("the binary printed no address")
}

// relayStats prints each of the binary's stats lines with the traffic's
// counts so far.
func relayStats(r io.Reader, start time.Time, c *counts) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "stats: ")
		if !ok {
			fmt.Fprintln(os.Stderr, sc.Text())
			continue
		}
		fmt.Printf("%4.0fs  %5d workflows  %6d abandoned polls  %6d wrong keys  %3d failures  |  %s\n",
			time.Since(start).Seconds(), c.workflows.Load(), c.abandoned.Load(), c.wrongKeys.Load(), c.failures.Load(), line)
	}
}

// loop runs step until ctx ends, counting its successes in n and its
// failures in c.
func loop(ctx context.Context, step func() error, n *atomic.Int64, c *counts) {
	for ctx.Err() == nil {
		if err := step(); err != nil {
			if ctx.Err() == nil {
				c.failures.Add(1)
				fmt.Fprintln(os.Stderr, "soak:", err)
			}
			continue
		}
		n.Add(1)
	}
}

// workflow is one client's whole use of the service.
func workflow(ctx context.Context, c *profilesvc.Client) error {
	p, err := c.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Soak applicant"})
	if err != nil {
		return err
	}
	defer func() {
		cleanup, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.DeleteProfile(cleanup, p.ID)
	}()
	folder := p.DefaultFolder().ID
	file, err := c.UploadFile(ctx, folder, bytes.NewReader(bytes.Repeat([]byte("PASSPORT\nFull Name: Jane Doe\n"), 1+rand.IntN(2000))),
		profilesvc.UploadParams{Filename: "passport.txt"})
	if err != nil {
		return err
	}
	text, err := c.CreateTextItem(ctx, folder, "Bank statement\nAccount holder: Jane Doe\n", profilesvc.CreateItemParams{})
	if err != nil {
		return err
	}
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{file.ID, text.ID}})
	if err != nil {
		return err
	}
	if _, err := c.WaitForAnalysis(ctx, id, nil); err != nil {
		return err
	}
	locale := profilesvc.LocaleEnglish
	if rand.IntN(2) == 0 {
		locale = profilesvc.LocaleKorean
	}
	rep, err := c.DownloadReport(ctx, id, &profilesvc.ReportParams{Locale: locale})
	if err != nil {
		return err
	}
	_, err = rep.WriteTo(io.Discard)
	return err
}

// endlessAnalysis starts an analysis scripted to run for an hour, for
// long polls to be held on.
func endlessAnalysis(ctx context.Context, c *profilesvc.Client) (string, error) {
	p, err := c.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Held"})
	if err != nil {
		return "", err
	}
	it, err := c.CreateTextItem(ctx, p.DefaultFolder().ID, "mock:duration=1h", profilesvc.CreateItemParams{})
	if err != nil {
		return "", err
	}
	return c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
}

// abandonPoll starts a long poll on an analysis that will not finish and
// walks away from it while the server holds it.
func abandonPoll(ctx context.Context, c *profilesvc.Client, id string) error {
	short, cancel := context.WithTimeout(ctx, time.Duration(20+rand.IntN(80))*time.Millisecond)
	defer cancel()
	_, err := c.GetAnalysis(short, id, &profilesvc.GetAnalysisParams{WaitForReport: true})
	if err == nil {
		return errors.New("a long poll on an analysis of an hour was answered")
	}
	if short.Err() == nil {
		return err
	}
	return nil
}

// wrongKey sends a large body with a key the server refuses.
func wrongKey(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/v1/workflows/wf_default/profiles", bytes.NewReader(bytes.Repeat([]byte("x"), 64<<10)))
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", "00000000-0000-4000-8000-000000000000")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("a wrong key was answered %d", resp.StatusCode)
	}
	return nil
}
