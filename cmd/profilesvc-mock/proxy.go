package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/profilesvc/profilesvc-go/internal/filelimit"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// proxyFlags are the flags that have a meaning in proxy mode; the others
// configure the simulation, which a proxy does not run.
var proxyFlags = []string{"proxy", "proxy-ca", "proxy-timeout", "record", "record-bodies", "addr", "api-key", "log-requests", "read-header-timeout", "shutdown-grace", "stats", "record-size", "record-bytes"}

// proxyOnly are the flags that need -proxy.
var proxyOnly = []string{"proxy-ca", "proxy-timeout", "record", "record-bodies"}

// proxyFlagsAlone refuses the flags of proxy mode without -proxy.
func (f *flags) proxyFlagsAlone() error {
	for _, name := range proxyOnly {
		if f.set[name] {
			return fmt.Errorf("-%s needs -proxy URL", name)
		}
	}
	return nil
}

// runProxy runs the binary in proxy mode until ctx ends, then prints the
// conformance table to stderr.
func runProxy(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	var wrong []string
	for name := range f.set {
		if !slices.Contains(proxyFlags, name) {
			wrong = append(wrong, "-"+name)
		}
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		return fmt.Errorf("%s configure the simulation, which a proxy does not run: leave them out with -proxy", strings.Join(wrong, ", "))
	}
	opts := []mockserver.ProxyOption{
		mockserver.WithProxyAPIKey(f.apiKey), mockserver.WithProxyTimeout(f.proxyTimeout),
		mockserver.WithProxyRequestRecord(f.recordSize, f.recordBytes),
	}
	if f.proxyCA != "" {
		certs, err := readCAs(f.proxyCA)
		if err != nil {
			return err
		}
		opts = append(opts, mockserver.WithProxyCAs(certs...))
	}
	if f.record != "" {
		opts = append(opts, mockserver.WithProxyRecording(f.record))
	}
	if f.recordBodies {
		opts = append(opts, mockserver.WithProxyRecordBodies())
	}
	// Each disagreement with the document is logged, on one line;
	// -log-requests logs every request too.
	opts = append(opts, mockserver.WithProxyLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	if f.logRequests {
		opts = append(opts, mockserver.WithProxyRequestLog())
	}
	p, err := mockserver.StartProxy(f.addr, f.proxy, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on %s\n", p.URL)
	fmt.Fprintf(stdout, "proxy to %s\n", p.Target)
	fmt.Fprintf(stdout, "api key: %s\n", p.APIKey) // of the control routes; requests to the service carry their own
	if f.stats > 0 {
		stopStats := printStats(stderr, f.stats)
		defer stopStats()
	}
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), f.grace)
	defer cancel()
	err = p.Shutdown(shutdown)
	if werr := p.Conformance().WriteTable(stderr); werr != nil {
		return werr
	}
	if errors.Is(err, mockserver.ErrRecordingNotSaved) {
		return err
	}
	if f.record != "" {
		fmt.Fprintf(stdout, "recording: %s\n", f.record)
	}
	if err != nil {
		fmt.Fprintf(stdout, "stopped: %v\n", err)
	} else {
		fmt.Fprintln(stdout, "stopped")
	}
	return nil
}

// maxCAFile bounds -proxy-ca's file.
const maxCAFile = 1 << 20

// readCAs reads the certificates of a PEM file.
func readCAs(path string) ([]*x509.Certificate, error) {
	data, err := filelimit.Read(path, maxCAFile)
	if err != nil {
		return nil, fmt.Errorf("-proxy-ca: %w", err)
	}
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("-proxy-ca %s: certificate %d: %w", path, len(certs)+1, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("-proxy-ca %s: no PEM certificate in the file", path)
	}
	return certs, nil
}
