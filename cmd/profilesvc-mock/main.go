// Command profilesvc-mock runs the mock Profile Document Analysis Service:
// a complete, stateful, in-memory implementation of its HTTP API, with
// analysis runs, real PDF reports and a /_mock/ control API, for clients in
// any language.
//
// Usage:
//
//	profilesvc-mock [-addr 127.0.0.1:8080] [-api-key KEY] [-analysis-duration 3s]
//	                [-seed FILE] [-id-seed N] [-multi-tenant] [-log-requests]
//	profilesvc-mock -proxy URL [-proxy-ca FILE] [-proxy-timeout 330s] [-addr ...] [-api-key KEY]
//
// With -proxy it simulates nothing: it forwards the service's routes to
// the real service at URL, checks every exchange against the service's
// OpenAPI document, and serves what it saw at GET /_mock/violations and
// GET /_mock/conformance; at shutdown it prints the conformance table to
// standard error.
//
// Once it accepts connections it prints its address and API key. Every
// answer carries a request ID in its X-Request-Id header; -log-requests
// logs it with each request, and GET /_mock/requests lists it as
// requestId. It stops gracefully on SIGINT or SIGTERM.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/filelimit"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "profilesvc-mock:", err)
		os.Exit(1)
	}
}

// run starts the server with the flags in args and serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.version {
		fmt.Fprintf(stdout, "profilesvc-mock %s\n", profilesvc.Version)
		return nil
	}
	if f.proxy != "" {
		return runProxy(ctx, f, stdout, stderr)
	}
	if err := f.proxyFlagsAlone(); err != nil {
		return err
	}
	opts, err := f.options(stderr)
	if err != nil {
		return err
	}
	srv, err := mockserver.Start(f.addr, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on %s\n", srv.URL)
	fmt.Fprintf(stdout, "api key: %s\n", srv.APIKey)
	if f.tlsCAOut != "" {
		if err := os.WriteFile(f.tlsCAOut, mockserver.CertificatePEM(srv.Certificate()), 0o644); err != nil {
			srv.Close()
			return fmt.Errorf("-tls-ca-out: %w", err)
		}
		fmt.Fprintf(stdout, "certificate: %s\n", f.tlsCAOut)
	}
	if f.stats > 0 {
		stopStats := printStats(stderr, f.stats)
		defer stopStats()
	}

	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), f.grace)
	defer cancel()
	// Requests still under way when the grace period ends are cut: the
	// shutdown has done what it should, and says so. A state that could
	// not be written is lost: that is a failure.
	err = srv.Shutdown(shutdown)
	switch {
	case errors.Is(err, mockserver.ErrStateNotSaved):
		return err
	case err != nil:
		fmt.Fprintf(stdout, "stopped: %v\n", err)
	default:
		fmt.Fprintln(stdout, "stopped")
	}
	return nil
}

// flags holds the command line, parsed.
type flags struct {
	addr, apiKey, seed, state, cors            string
	tlsCert, tlsKey, tlsCAOut                  string
	duration, reportDelay, grace, stats        time.Duration
	readHeaderTimeout                          time.Duration
	idSeed, maxJSON, maxUpload, uploadMemory   int64
	recordBytes                                int64
	maxTenants, recordSize                     int
	multi, logRequests, version, tlsSelfSigned bool
	// Proxy mode (proxy.go).
	proxy, proxyCA, record string
	proxyTimeout           time.Duration
	recordBodies           bool
	// Replay of a recording.
	replay       string
	replayStrict bool
	manual       bool
	// set names the flags given on the command line.
	set map[string]bool
}

// parseFlags reads the command line; usage and errors go to stderr.
func parseFlags(args []string, stderr io.Writer) (*flags, error) {
	var f flags
	fs := flag.NewFlagSet("profilesvc-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	fs.StringVar(&f.apiKey, "api-key", os.Getenv("PROFILESVC_API_KEY"), "API key to accept (default $PROFILESVC_API_KEY, else a random UUID)")
	fs.DurationVar(&f.duration, "analysis-duration", mockserver.DefaultAnalysisDuration, "how long an analysis takes from start to completed")
	fs.BoolVar(&f.manual, "manual-analyses", false, "analyses stay pending until the control API (or the dashboard at /_mock/ui) moves them on: process, complete, fail")
	fs.StringVar(&f.seed, "seed", "", "JSON file of workflows, profiles, folders and items to load at start")
	fs.Int64Var(&f.idSeed, "id-seed", -1, "make IDs, request IDs included, deterministic from this seed (0 or more)")
	fs.BoolVar(&f.multi, "multi-tenant", false, "accept any well-formed UUID key, each with its own namespace")
	fs.BoolVar(&f.logRequests, "log-requests", false, "log every request to stderr")
	fs.IntVar(&f.maxTenants, "max-tenants", mockserver.DefaultMaxTenants, "with -multi-tenant, the most keys kept a namespace for; the least recently used idle one is evicted")
	fs.Int64Var(&f.maxJSON, "max-json-body", mockserver.DefaultMaxJSONBody, "the largest JSON request body, in bytes")
	fs.Int64Var(&f.maxUpload, "max-upload", mockserver.DefaultMaxUploadSize, "the largest upload, in bytes")
	fs.Int64Var(&f.uploadMemory, "upload-memory", mockserver.DefaultUploadMemory, "the bytes all uploads under way may hold at once; beyond, 503 with Retry-After")
	fs.IntVar(&f.recordSize, "record-size", mockserver.DefaultRecordSize, "how many requests each namespace's record keeps")
	fs.Int64Var(&f.recordBytes, "record-bytes", mockserver.DefaultRecordBytes, "how many bytes each namespace's request record holds")
	fs.DurationVar(&f.grace, "shutdown-grace", 10*time.Second, "how long requests under way may finish after SIGINT or SIGTERM")
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", mockserver.DefaultReadHeaderTimeout, "how long a connection may take to send a request's headers before it is closed")
	fs.DurationVar(&f.stats, "stats", 0, "print the process's memory and goroutines to stderr at this interval (0: never)")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	fs.StringVar(&f.state, "state", "", "JSON file of the server's state: loaded at start when it exists, written at shutdown and on POST /_mock/snapshot")
	fs.StringVar(&f.cors, "cors", "", "comma-separated origins whose browser code may call the server (* for any)")
	fs.DurationVar(&f.reportDelay, "report-delay", 0, "how long every analysis is completed before its report exists")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate (with -tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the PEM private key of -tls-cert")
	fs.BoolVar(&f.tlsSelfSigned, "tls-self-signed", false, "serve HTTPS with a certificate made at start, for 127.0.0.1, ::1 and localhost")
	fs.StringVar(&f.tlsCAOut, "tls-ca-out", "", "with -tls-self-signed, write the certificate to this file, for clients to trust (curl --cacert)")
	fs.StringVar(&f.proxy, "proxy", "", "proxy mode: forward the service's routes to the real service at this base URL, checking each exchange against api/openapi.yaml")
	fs.StringVar(&f.proxyCA, "proxy-ca", "", "with -proxy, a PEM file of certificate authorities the service's certificate may be signed by, beside the system's")
	fs.StringVar(&f.record, "record", "", "with -proxy, record the exchanges to this file, an HTTP Archive (HAR 1.2), written at shutdown and on POST /_mock/recording; the API key never reaches it")
	fs.BoolVar(&f.recordBodies, "record-bodies", false, "with -record, keep the bytes of uploads and reports too, not only their sizes and SHA-256")
	fs.StringVar(&f.replay, "replay", "", "end analyses as this recording (-proxy ... -record FILE) shows the service ending analyses of the same documents")
	fs.BoolVar(&f.replayStrict, "replay-strict", false, "with -replay, fail an analysis whose documents no recorded analysis had, rather than run the engine")
	fs.DurationVar(&f.proxyTimeout, "proxy-timeout", mockserver.DefaultProxyTimeout, "with -proxy, how long to wait for the service to begin an answer before answering 504 UPSTREAM_TIMEOUT")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return &f, nil
}

// options turns the flags into the server's options; the request log,
// when asked for, goes to stderr.
func (f *flags) options(stderr io.Writer) ([]mockserver.Option, error) {
	opts := []mockserver.Option{
		mockserver.WithAPIKey(f.apiKey), mockserver.WithAnalysisDuration(f.duration),
		mockserver.WithMaxTenants(f.maxTenants), mockserver.WithMaxJSONBody(f.maxJSON), mockserver.WithMaxUploadSize(f.maxUpload),
		mockserver.WithUploadMemory(f.uploadMemory), mockserver.WithRequestRecordSize(f.recordSize), mockserver.WithRequestRecordBytes(f.recordBytes),
		mockserver.WithReportDelay(f.reportDelay), mockserver.WithReadHeaderTimeout(f.readHeaderTimeout),
	}
	if f.state != "" {
		opts = append(opts, mockserver.WithStateFile(f.state))
	}
	if f.cors != "" {
		opts = append(opts, mockserver.WithCORS(strings.Split(f.cors, ",")...)) // WithCORS trims each
	}
	tlsOpt, err := tlsOption(f.tlsCert, f.tlsKey, f.tlsSelfSigned, f.tlsCAOut)
	if err != nil {
		return nil, err
	}
	if tlsOpt != nil {
		opts = append(opts, tlsOpt)
	}
	if f.seed != "" {
		s, err := mockserver.LoadSeedFile(f.seed)
		if err != nil {
			return nil, fmt.Errorf("seed: %w", err)
		}
		opts = append(opts, mockserver.WithSeed(s))
	}
	if f.idSeed >= 0 {
		opts = append(opts, mockserver.WithIDSeed(uint64(f.idSeed)))
	}
	if f.replay != "" {
		opts = append(opts, mockserver.WithReplayFile(f.replay))
	}
	if f.replayStrict {
		opts = append(opts, mockserver.WithReplayStrict())
	}
	if f.manual {
		if f.set["analysis-duration"] {
			return nil, errors.New("-manual-analyses and -analysis-duration: give one (with -manual-analyses, an analysis takes as long as the control API lets it)")
		}
		opts = append(opts, mockserver.WithManualAnalyses())
	}
	if f.multi {
		opts = append(opts, mockserver.WithMultiTenant())
	}
	if f.logRequests {
		opts = append(opts, mockserver.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	}
	return opts, nil
}

// printStats prints the process's memory and goroutines to w every
// interval, until the returned function is called.
func printStats(w io.Writer, interval time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				fmt.Fprintf(w, "stats: heap %.1f MiB, from the OS %.1f MiB, goroutines %d\n",
					float64(m.HeapInuse)/(1<<20), float64(m.Sys-m.HeapReleased)/(1<<20), runtime.NumGoroutine())
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// maxPEMFile is the largest -tls-cert or -tls-key file read: a
// certificate chain is a few kilobytes.
const maxPEMFile = 1 << 20

// tlsOption is the server option of the TLS flags, or nil for plain HTTP.
func tlsOption(certFile, keyFile string, selfSigned bool, caOut string) (mockserver.Option, error) {
	switch {
	case (certFile != "") != (keyFile != ""):
		return nil, errors.New("-tls-cert and -tls-key go together")
	case certFile != "" && selfSigned:
		return nil, errors.New("-tls-self-signed makes its own certificate: drop -tls-cert and -tls-key")
	case caOut != "" && !selfSigned:
		return nil, errors.New("-tls-ca-out writes the certificate of -tls-self-signed")
	case certFile != "":
		certPEM, err := filelimit.Read(certFile, maxPEMFile)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert: %w", err)
		}
		keyPEM, err := filelimit.Read(keyFile, maxPEMFile)
		if err != nil {
			return nil, fmt.Errorf("-tls-key: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert: %w", err)
		}
		return mockserver.WithTLSCertificate(cert), nil
	case selfSigned:
		return mockserver.WithTLS(), nil
	}
	return nil, nil
}
