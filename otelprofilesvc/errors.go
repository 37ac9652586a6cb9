package otelprofilesvc

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// isTLSError reports an error of the TLS handshake or of the server's
// certificate.
func isTLSError(err error) bool {
	var recErr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &recErr) || errors.As(err, &certErr) || errors.As(err, &unknown) ||
		errors.As(err, &hostErr) || errors.As(err, &invalid)
}

// errorTypeName is the Go type of the innermost error, as
// OpenTelemetry's conventions suggest for an error of no better name.
func errorTypeName(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return fmt.Sprintf("%T", err)
		}
		err = next
	}
}
