// Command memory measures the memory of the mock's binary under the loads
// that used to multiply it, each from this process against a binary of
// its own, so that the figure is the server's alone: its peak resident
// memory (VmHWM of /proc/PID/status, Linux only) against a ceiling.
//
//	go run ./internal/cmd/memory [-only NAME]
//
// It builds cmd/profilesvc-mock into a temporary directory, then, for
// each load, starts it, drives it, reads its peak and stops it:
//
//   - chunked-uploads: 24 uploads of 40 MiB at once, without a
//     Content-Length (chunked), against the default limits (32 MiB an
//     upload, 128 MiB for the uploads under way): all are refused, 413 or
//     503, and the memory they take is counted as it arrives;
//   - chunked-upload: one legal upload of 32 MiB, chunked;
//   - large-text-analyses: three analyses, one after the other, of a 30
//     MiB text of one "Full Name: ..." line repeated, each analysis's JSON
//     measured;
//   - parallel-listings: 24 listings at once of 100 profiles with 1 MB of
//     metadata each;
//   - proxy-transfers: the binary as a proxy (-proxy, -record) in front
//     of a service of this process's own, a 30 MiB upload through it,
//     then a 30 MiB PDF report: neither is held whole;
//   - snapshots: POST /_mock/snapshot of a state of 96 MiB of items, once,
//     then four at once while a read of a profile is timed every 10 ms; the
//     peak is read from the snapshot's start (VmHWM reset through
//     /proc/PID/clear_refs).
//
// It prints each figure with its ceiling and exits 1 if one is passed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	mib = 1 << 20
	key = "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d"
)

func main() {
	only := flag.String("only", "", "run this load alone")
	flag.Parse()
	if err := run(*only); err != nil {
		fmt.Fprintln(os.Stderr, "memory:", err)
		os.Exit(1)
	}
}

// load is one measurement: it drives a running binary and returns its
// figures.
type load struct {
	name string
	args []string // the binary's flags beyond -addr and -api-key
	run  func(b *binary) ([]figure, error)
}

// figure is one measured value, with its ceiling (0: reported only).
type figure struct {
	what    string
	value   float64
	unit    string
	ceiling float64
}

func run(only string) error {
	dir, err := os.MkdirTemp("", "memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "profilesvc-mock")
	build := exec.Command("go", "build", "-o", bin, "./cmd/profilesvc-mock")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the binary: %w", err)
	}
	service := httptest.NewServer(fakeService())
	defer service.Close()
	loads := []load{
		{"proxy-transfers", []string{"-proxy", service.URL, "-record", filepath.Join(dir, "proxy.har")}, proxyTransfers},
		{"chunked-uploads", nil, chunkedUploads},
		{"chunked-upload", nil, chunkedUpload},
		{"large-text-analyses", []string{"-analysis-duration", "1s"}, largeTextAnalyses},
		{"parallel-listings", nil, parallelListings},
		{"snapshots", []string{"-state", filepath.Join(dir, "state.json")}, snapshots},
	}
	failed := false
	for _, l := range loads {
		if only != "" && l.name != only {
			continue
		}
		b, err := startBinary(bin, l.args)
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		figures, err := l.run(b)
		b.stop()
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		fmt.Printf("%s\n", l.name)
		for _, f := range figures {
			mark := ""
			if f.ceiling > 0 {
				mark = fmt.Sprintf("  (ceiling %.0f %s)", f.ceiling, f.unit)
				if f.value > f.ceiling {
					mark += "  PASSED THE CEILING"
					failed = true
				}
			}
			fmt.Printf("  %-58s %8.1f %s%s\n", f.what, f.value, f.unit, mark)
		}
	}
	if failed {
		return errors.New("a figure passed its ceiling")
	}
	return nil
}

// binary is a running mock binary.
type binary struct {
	cmd *exec.Cmd
	url string
	hc  *http.Client
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

func startBinary(path string, args []string) (*binary, error) {
	cmd := exec.Command(path, append([]string{"-addr", "127.0.0.1:0", "-api-key", key}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	buf := make([]byte, 4096)
	var seen []byte
	for {
		n, err := out.Read(buf)
		seen = append(seen, buf[:n]...)
		if m := listening.FindSubmatch(seen); m != nil {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return &binary{cmd: cmd, url: string(m[1]), hc: &http.Client{Timeout: 10 * time.Minute}}, nil
		}
		if err != nil {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("the binary did not start: %q", seen)
		}
	}
}

func (b *binary) stop() {
	_ = b.cmd.Process.Signal(os.Interrupt)
	_ = b.cmd.Wait()
}

// peakMiB is the binary's peak resident memory so far, in MiB.
func (b *binary) peakMiB() (float64, error) { return b.status("VmHWM") }

// rssMiB is the binary's resident memory now, in MiB.
func (b *binary) rssMiB() (float64, error) { return b.status("VmRSS") }

func (b *binary) status(field string) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("reading the binary's memory (Linux only): %w", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/PID/status", field)
}

// resetPeak starts the peak resident memory anew from now.
func (b *binary) resetPeak() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", b.cmd.Process.Pid), []byte("5"), 0)
}

// do sends a request and returns the status and the body; a JSON body is
// given as any value to encode.
func (b *binary) do(method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.url+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("x-api-key", key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// profile creates a profile and returns its ID and its default folder's.
func (b *binary) profile(name string, metadata map[string]any) (string, string, error) {
	status, body, err := b.do("POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": name, "metadata": metadata})
	if err != nil || status != 201 {
		return "", "", fmt.Errorf("creating a profile: %d %.200s %v", status, body, err)
	}
	var p struct {
		ID      string `json:"id"`
		Folders []struct {
			ID string `json:"id"`
		} `json:"folders"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return "", "", err
	}
	return p.ID, p.Folders[0].ID, nil
}

// upload uploads data as a file to a folder, with its Content-Length, or
// chunked (streamed from a pipe, of unknown length); it returns the
// status, and the item's ID on success.
func (b *binary) upload(folder, name string, size int64, fill byte, chunked bool) (int, string, error) {
	var body io.Reader
	var contentType string
	if chunked {
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		contentType = mw.FormDataContentType()
		go func() {
			part, err := mw.CreateFormFile("file", name)
			block := bytes.Repeat([]byte{fill}, 64<<10)
			for left := size; err == nil && left > 0; left -= int64(len(block)) {
				_, err = part.Write(block[:min(int64(len(block)), left)])
			}
			if err == nil {
				err = mw.Close()
			}
			pw.CloseWithError(err)
		}()
		body = pr
	} else {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		part, err := mw.CreateFormFile("file", name)
		if err != nil {
			return 0, "", err
		}
		if fill == 0 {
			_, _ = part.Write(textOfNames(size))
		} else {
			_, _ = part.Write(bytes.Repeat([]byte{fill}, int(size)))
		}
		_ = mw.Close()
		contentType = mw.FormDataContentType()
		body = &buf
	}
	req, err := http.NewRequest("POST", b.url+"/v1/folders/"+folder+"/items", body)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("x-api-key", key)
	req.Header.Set("Content-Type", contentType)
	resp, err := b.hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var it struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &it)
	return resp.StatusCode, it.ID, nil
}

// textOfNames is size bytes of one "Full Name: ..." line repeated: every
// passage of it cites the name, the worst case of an unbounded engine.
func textOfNames(size int64) []byte {
	line := []byte("Full Name: Jane Doe 123\n")
	return bytes.Repeat(line, int(size)/len(line)+1)[:size]
}

func chunkedUploads(b *binary) ([]figure, error) {
	_, folder, err := b.profile("Uploads", nil)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, err := b.upload(folder, fmt.Sprintf("big-%d.bin", i), 40*mib, 'x', true)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				outcomes["connection closed"]++
			} else {
				outcomes[strconv.Itoa(status)]++
			}
		}()
	}
	wg.Wait()
	peak, err := b.peakMiB()
	if err != nil {
		return nil, err
	}
	fmt.Printf("  outcomes of the 24 uploads: %v\n", outcomes)
	if outcomes["201"] > 0 {
		return nil, fmt.Errorf("an upload over the limit was stored: %v", outcomes)
	}
	return []figure{{"peak resident memory, 24 chunked uploads of 40 MiB at once", peak, "MiB", 300}}, nil
}

func chunkedUpload(b *binary) ([]figure, error) {
	_, folder, err := b.profile("Upload", nil)
	if err != nil {
		return nil, err
	}
	status, _, err := b.upload(folder, "legal.bin", 32*mib-1024, 'y', true)
	if err != nil || status != 201 {
		return nil, fmt.Errorf("a legal chunked upload: %d %v", status, err)
	}
	peak, err := b.peakMiB()
	if err != nil {
		return nil, err
	}
	return []figure{{"peak resident memory, one chunked upload of 32 MiB", peak, "MiB", 0}}, nil
}

func largeTextAnalyses(b *binary) ([]figure, error) {
	profile, folder, err := b.profile("Large text", nil)
	if err != nil {
		return nil, err
	}
	status, item, err := b.upload(folder, "names.txt", 30*mib, 0, false)
	if err != nil || status != 201 {
		return nil, fmt.Errorf("uploading 30 MiB of text: %d %v", status, err)
	}
	var figures []figure
	for i := range 3 {
		status, body, err := b.do("POST", "/v1/analyses/"+profile+"/analyze", map[string]any{"targetItems": []any{map[string]any{"itemId": item}}})
		if err != nil || status != 202 {
			return nil, fmt.Errorf("starting analysis %d: %d %.200s %v", i+1, status, body, err)
		}
		var started struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(body, &started); err != nil {
			return nil, err
		}
		status, body, err = b.do("GET", "/v1/analyses/"+started.ID+"?waitForReport=true&timeoutSeconds=300", nil)
		if err != nil || status != 200 {
			return nil, fmt.Errorf("waiting for analysis %d: %d %v", i+1, status, err)
		}
		var a struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(body, &a); err != nil || a.Status != "completed" {
			return nil, fmt.Errorf("analysis %d: %.200s", i+1, body)
		}
		figures = append(figures, figure{fmt.Sprintf("analysis %d's JSON", i+1), float64(len(body)) / 1024, "KiB", 10 * 1024})
	}
	peak, err := b.peakMiB()
	if err != nil {
		return nil, err
	}
	return append(figures, figure{"peak resident memory, after three analyses of 30 MiB of text", peak, "MiB", 600}), nil
}

func parallelListings(b *binary) ([]figure, error) {
	metadata := map[string]any{"notes": strings.Repeat("m", 1_000_000)}
	for i := range 100 {
		if _, _, err := b.profile(fmt.Sprintf("Profile %03d", i), metadata); err != nil {
			return nil, err
		}
	}
	before, err := b.rssMiB()
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 24)
	for range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, body, err := b.do("GET", "/v1/workflows/wf_default/profiles?limit=100", nil)
			if err == nil && (status != 200 || len(body) < 100_000_000) {
				err = fmt.Errorf("a listing: %d, %d bytes", status, len(body))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return nil, err
		}
	}
	peak, err := b.peakMiB()
	if err != nil {
		return nil, err
	}
	return []figure{
		{"resident memory with 100 profiles of 1 MB of metadata", before, "MiB", 0},
		{"peak resident memory, 24 listings of them at once", peak, "MiB", 800},
	}, nil
}

func snapshots(b *binary) ([]figure, error) {
	profile, folder, err := b.profile("State", nil)
	if err != nil {
		return nil, err
	}
	for i := range 12 {
		if status, _, err := b.upload(folder, fmt.Sprintf("part-%d.bin", i), 8*mib, byte('a'+i), false); err != nil || status != 201 {
			return nil, fmt.Errorf("uploading the state: %d %v", status, err)
		}
	}
	if err := b.resetPeak(); err != nil {
		return nil, fmt.Errorf("resetting the peak (/proc/PID/clear_refs): %w", err)
	}
	status, body, err := b.do("POST", "/_mock/snapshot", nil)
	if err != nil || status != 200 {
		return nil, fmt.Errorf("POST /_mock/snapshot: %d %.200s %v", status, body, err)
	}
	var saved struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(body, &saved); err != nil {
		return nil, err
	}
	fi, err := os.Stat(saved.Path)
	if err != nil {
		return nil, err
	}
	stateMiB := float64(fi.Size()) / mib
	one, err := b.peakMiB()
	if err != nil {
		return nil, err
	}

	// Four at once, while a small request is timed.
	if err := b.resetPeak(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	slowest := make(chan time.Duration, 1)
	go func() {
		var worst time.Duration
		for ctx.Err() == nil {
			start := time.Now()
			_, _, _ = b.do("GET", "/v1/profiles/"+profile, nil)
			worst = max(worst, time.Since(start))
			time.Sleep(10 * time.Millisecond)
		}
		slowest <- worst
	}()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, _ = b.do("POST", "/_mock/snapshot", nil)
		}()
	}
	wg.Wait()
	cancel()
	four, err := b.peakMiB()
	if err != nil {
		return nil, err
	}
	worst := <-slowest
	return []figure{
		{"the state file", stateMiB, "MiB", 0},
		{"peak resident memory, one snapshot", one, "MiB", 2.5 * stateMiB},
		{"peak resident memory, four snapshots at once", four, "MiB", 2.5 * stateMiB},
		{"slowest small request meanwhile", float64(worst.Milliseconds()), "ms", 0},
	}, nil
}

// transferSize is the size of the upload and of the report that pass
// through the proxy.
const transferSize = 30 * mib

// fakeService is the service behind the proxy of proxy-transfers: it
// takes an upload whole, reading it as it comes, and serves a report of
// transferSize bytes, streamed.
func fakeService() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/items"):
			n, _ := io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"id":"item_fake","received":%d}`, n)
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/report"):
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Length", strconv.Itoa(transferSize))
			block := make([]byte, 64<<10)
			copy(block, "%PDF-1.7\n")
			for left := transferSize; left > 0; left -= len(block) {
				if _, err := w.Write(block[:min(len(block), left)]); err != nil {
					return
				}
				clear(block[:9])
			}
		default:
			http.NotFound(w, r)
		}
	})
}

// proxyTransfers sends a 30 MiB upload, then asks for a 30 MiB report,
// through the proxy.
func proxyTransfers(b *binary) ([]figure, error) {
	status, _, err := b.upload("fld_fake", "big.bin", transferSize, 'x', false)
	if err != nil || status != http.StatusCreated {
		return nil, fmt.Errorf("the upload through the proxy: %d %v", status, err)
	}
	afterUpload, err := b.peakMiB()
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest("GET", b.url+"/v1/analyses/analysis_fake/report", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("x-api-key", key)
	resp, err := b.hc.Do(req)
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != transferSize {
		return nil, fmt.Errorf("the report through the proxy: %d bytes of %d, %v", n, transferSize, err)
	}
	afterReport, err := b.peakMiB()
	if err != nil {
		return nil, err
	}
	return []figure{
		{"peak resident memory after a 30 MiB upload through the proxy", afterUpload, "MiB", 95},
		{"peak resident memory after a 30 MiB report through the proxy", afterReport, "MiB", 95},
	}, nil
}
