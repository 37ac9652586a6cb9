// Command profilesvc-mock runs the mock Profile Document Analysis Service:
// a complete, stateful, in-memory implementation of its HTTP API, with
// analysis runs, real PDF reports and a /_mock/ control API, for clients in
// any language.
//
// Usage:
//
//	profilesvc-mock [-addr 127.0.0.1:8080] [-api-key KEY] [-analysis-duration 3s]
//	                [-seed FILE] [-id-seed N] [-multi-tenant] [-log-requests]
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
	fs := flag.NewFlagSet("profilesvc-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	apiKey := fs.String("api-key", os.Getenv("PROFILESVC_API_KEY"), "API key to accept (default $PROFILESVC_API_KEY, else a random UUID)")
	duration := fs.Duration("analysis-duration", mockserver.DefaultAnalysisDuration, "how long an analysis takes from start to completed")
	seed := fs.String("seed", "", "JSON file of workflows, profiles, folders and items to load at start")
	idSeed := fs.Int64("id-seed", -1, "make IDs, request IDs included, deterministic from this seed (0 or more)")
	multi := fs.Bool("multi-tenant", false, "accept any well-formed UUID key, each with its own namespace")
	logRequests := fs.Bool("log-requests", false, "log every request to stderr")
	maxTenants := fs.Int("max-tenants", mockserver.DefaultMaxTenants, "with -multi-tenant, the most keys kept a namespace for; the least recently used idle one is evicted")
	maxJSON := fs.Int64("max-json-body", mockserver.DefaultMaxJSONBody, "the largest JSON request body, in bytes")
	maxUpload := fs.Int64("max-upload", mockserver.DefaultMaxUploadSize, "the largest upload, in bytes")
	uploadMemory := fs.Int64("upload-memory", mockserver.DefaultUploadMemory, "the bytes all uploads under way may hold at once; beyond, 503 with Retry-After")
	recordSize := fs.Int("record-size", mockserver.DefaultRecordSize, "how many requests each namespace's record keeps")
	recordBytes := fs.Int64("record-bytes", mockserver.DefaultRecordBytes, "how many bytes each namespace's request record holds")
	grace := fs.Duration("shutdown-grace", 10*time.Second, "how long requests under way may finish after SIGINT or SIGTERM")
	stats := fs.Duration("stats", 0, "print the process's memory and goroutines to stderr at this interval (0: never)")
	version := fs.Bool("version", false, "print the version and exit")
	state := fs.String("state", "", "JSON file of the server's state: loaded at start when it exists, written at shutdown and on POST /_mock/snapshot")
	cors := fs.String("cors", "", "comma-separated origins whose browser code may call the server (* for any)")
	reportDelay := fs.Duration("report-delay", 0, "how long every analysis is completed before its report exists")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this PEM certificate (with -tls-key)")
	tlsKey := fs.String("tls-key", "", "the PEM private key of -tls-cert")
	tlsSelfSigned := fs.Bool("tls-self-signed", false, "serve HTTPS with a certificate made at start, for 127.0.0.1, ::1 and localhost")
	tlsCAOut := fs.String("tls-ca-out", "", "with -tls-self-signed, write the certificate to this file, for clients to trust (curl --cacert)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *version {
		fmt.Fprintf(stdout, "profilesvc-mock %s\n", profilesvc.Version)
		return nil
	}

	opts := []mockserver.Option{
		mockserver.WithAPIKey(*apiKey), mockserver.WithAnalysisDuration(*duration),
		mockserver.WithMaxTenants(*maxTenants), mockserver.WithMaxJSONBody(*maxJSON), mockserver.WithMaxUploadSize(*maxUpload),
		mockserver.WithUploadMemory(*uploadMemory), mockserver.WithRequestRecordSize(*recordSize), mockserver.WithRequestRecordBytes(*recordBytes),
		mockserver.WithReportDelay(*reportDelay),
	}
	if *state != "" {
		opts = append(opts, mockserver.WithStateFile(*state))
	}
	if *cors != "" {
		opts = append(opts, mockserver.WithCORS(strings.Split(*cors, ",")...))
	}
	tlsOpt, err := tlsOption(*tlsCert, *tlsKey, *tlsSelfSigned, *tlsCAOut)
	if err != nil {
		return err
	}
	if tlsOpt != nil {
		opts = append(opts, tlsOpt)
	}
	if *seed != "" {
		s, err := mockserver.LoadSeedFile(*seed)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		opts = append(opts, mockserver.WithSeed(s))
	}
	if *idSeed >= 0 {
		opts = append(opts, mockserver.WithIDSeed(uint64(*idSeed)))
	}
	if *multi {
		opts = append(opts, mockserver.WithMultiTenant())
	}
	if *logRequests {
		opts = append(opts, mockserver.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	}
	srv, err := mockserver.Start(*addr, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on %s\n", srv.URL)
	fmt.Fprintf(stdout, "api key: %s\n", srv.APIKey)
	if *tlsCAOut != "" {
		if err := os.WriteFile(*tlsCAOut, mockserver.CertificatePEM(srv.Certificate()), 0o644); err != nil {
			srv.Close()
			return fmt.Errorf("-tls-ca-out: %w", err)
		}
		fmt.Fprintf(stdout, "certificate: %s\n", *tlsCAOut)
	}
	if *stats > 0 {
		stopStats := printStats(stderr, *stats)
		defer stopStats()
	}

	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	// Requests still under way when the grace period ends are cut: the
	// shutdown has done what it should, and says so.
	if err := srv.Shutdown(shutdown); err != nil {
		fmt.Fprintf(stdout, "stopped: %v\n", err)
		return nil
	}
	fmt.Fprintln(stdout, "stopped")
	return nil
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
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert: %w", err)
		}
		return mockserver.WithTLSCertificate(cert), nil
	case selfSigned:
		return mockserver.WithTLS(), nil
	}
	return nil, nil
}
