package main

// The flags of the test kit's features: -version, -state, -cors, and
// -tls-self-signed, -tls-ca-out, -tls-cert and -tls-key.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/testutil"
)

// mCertLine is the line of a run that wrote -tls-ca-out.
var mCertLine = regexp.MustCompile(`(?m)^certificate: (\S+)$`)

// trustingClient returns an HTTP client that trusts the certificates of
// pemBytes alone; its idle connections close when the test ends.
func trustingClient(t *testing.T, pemBytes []byte) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemBytes), "no certificate in %q", pemBytes)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// checkTLSRun checks a run serving HTTPS with the certificate of
// certPEM: a client trusting it creates and reads a profile through the
// SDK and sees that certificate served; a client trusting nothing fails
// with a certificate error.
func checkTLSRun(t *testing.T, m *mRun, certPEM []byte) {
	t.Helper()
	require.True(t, strings.HasPrefix(m.URL, "https://127.0.0.1:"), "listening on %q: want https", m.URL)
	hc := trustingClient(t, certPEM)
	c, err := profilesvc.NewClient(profilesvc.WithBaseURL(m.URL), profilesvc.WithAPIKey(m.Key), profilesvc.WithHTTPClient(hc), profilesvc.WithMaxRetries(0))
	require.NoError(t, err)
	p, err := c.CreateProfile(t.Context(), "wf_default", profilesvc.CreateProfileParams{Name: "Over TLS"})
	require.NoError(t, err, "CreateProfile over HTTPS")
	got, err := c.GetProfile(t.Context(), p.ID)
	require.NoError(t, err, "GetProfile over HTTPS")
	assert.Equal(t, "Over TLS", got.Name)

	resp, err := hc.Get(m.URL + "/_mock/health")
	require.NoError(t, err, "GET /_mock/health over HTTPS")
	_ = resp.Body.Close()
	block, _ := pem.Decode(certPEM)
	require.NotNil(t, block, "the certificate file holds no PEM block")
	require.True(t, resp.TLS != nil && len(resp.TLS.PeerCertificates) > 0, "the answer came without TLS")
	assert.Equal(t, block.Bytes, resp.TLS.PeerCertificates[0].Raw, "the certificate served is not the file's")

	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool(), MinVersion: tls.VersionTLS12}}
	t.Cleanup(tr.CloseIdleConnections)
	_, err = (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Get(m.URL + "/_mock/health")
	var verr *tls.CertificateVerificationError
	assert.ErrorAs(t, err, &verr, "a client that does not trust the certificate")
}

func TestRunVersion(t *testing.T) {
	var stdout, stderr testutil.LockedBuffer
	require.NoError(t, run(t.Context(), []string{"-version"}, &stdout, &stderr), "run -version")
	assert.Equal(t, "profilesvc-mock "+profilesvc.Version+"\n", stdout.String(), "what -version prints")
	assert.Empty(t, stderr.String(), "stderr of -version")

	// A running server says the same version on its health route, to a
	// client without a key.
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "k")
	status, body := mRequest(t, "GET", m.URL+"/_mock/health", "", "")
	require.Equal(t, 200, status, "GET /_mock/health without a key: %s", body)
	var health map[string]any
	require.NoError(t, json.Unmarshal(body, &health), "the health answer %s", body)
	if diff := cmp.Diff(map[string]any{"status": "ok", "version": profilesvc.Version}, health); diff != "" {
		t.Errorf("GET /_mock/health (-want +got):\n%s", diff)
	}
}

func TestRunTLSSelfSigned(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "tls-key", "-tls-self-signed", "-tls-ca-out", ca)
	assert.Contains(t, m.stdout.String(), "certificate: "+ca, "the run names the certificate file")
	certPEM, err := os.ReadFile(ca)
	require.NoError(t, err, "-tls-ca-out")
	checkTLSRun(t, m, certPEM)
	require.NoError(t, m.stop(t), "run after its context ended")
}

func TestRunTLSCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeCertificate(t, dir)
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "tls-key", "-tls-cert", certFile, "-tls-key", keyFile)
	certPEM, err := os.ReadFile(certFile)
	require.NoError(t, err)
	checkTLSRun(t, m, certPEM)
}

// writeCertificate writes a self-signed certificate for 127.0.0.1 and its
// key, as PEM files in dir.
func writeCertificate(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(42),
		Subject:               pkix.Name{CommonName: "kit flags test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600))
	return certFile, keyFile
}

func TestRunTLSFlagErrors(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeCertificate(t, dir)
	missing := filepath.Join(dir, "absent.pem")
	for _, tt := range []struct {
		name string
		args []string
		want string // in the error
	}{
		{"-tls-cert without -tls-key", []string{"-tls-cert", certFile}, "-tls-key"},
		{"-tls-key without -tls-cert", []string{"-tls-key", keyFile}, "-tls-cert"},
		{"-tls-ca-out without -tls-self-signed", []string{"-tls-ca-out", filepath.Join(dir, "ca.pem")}, "-tls-self-signed"},
		{"-tls-self-signed with a certificate", []string{"-tls-self-signed", "-tls-cert", certFile, "-tls-key", keyFile}, "-tls-self-signed"},
		{"a certificate that cannot be read", []string{"-tls-cert", missing, "-tls-key", keyFile}, "-tls-cert"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := mRunError(t, append([]string{"-addr", "127.0.0.1:0", "-api-key", "k"}, tt.args...)...)
			assert.Contains(t, err.Error(), tt.want, "the error names the flag")
		})
	}
}

// corsRequest sends a request with an Origin, and for OPTIONS the
// preflight's headers; it returns the status and headers of the answer.
func corsRequest(t *testing.T, method, url, key, origin string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", origin)
	if method == http.MethodOptions {
		req.Header.Set("Access-Control-Request-Method", "GET")
		req.Header.Set("Access-Control-Request-Headers", "x-api-key")
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	require.NoError(t, err, "%s %s", method, url)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header
}

func TestRunCORS(t *testing.T) {
	const app, admin, evil = "https://app.test", "https://admin.test", "https://evil.test"
	for _, tt := range []struct {
		name    string
		cors    string
		allowed map[string]bool
	}{
		{"origins", app + "," + admin, map[string]bool{app: true, admin: true, evil: false}},
		{"any", "*", map[string]bool{app: true, evil: true}},
		{"none", "", map[string]bool{app: false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"-addr", "127.0.0.1:0", "-api-key", "k"}
			if tt.cors != "" {
				args = append(args, "-cors", tt.cors)
			}
			m := mStart(t, args...)
			for origin, allowed := range tt.allowed {
				status, h := corsRequest(t, "OPTIONS", m.URL+"/v1/workflows/wf_default/profiles", "", origin)
				status2, h2 := corsRequest(t, "GET", m.URL+"/v1/workflows/wf_default/profiles", "k", origin)
				assert.Equal(t, 200, status2, "GET from %s", origin)
				if allowed {
					assert.Equal(t, 204, status, "preflight from %s", origin)
					assert.Contains(t, []string{origin, "*"}, h.Get("Access-Control-Allow-Origin"), "preflight from %s: Access-Control-Allow-Origin", origin)
					assert.Contains(t, strings.ToLower(h.Get("Access-Control-Allow-Headers")), "x-api-key", "preflight from %s: Access-Control-Allow-Headers", origin)
					assert.Contains(t, []string{origin, "*"}, h2.Get("Access-Control-Allow-Origin"), "GET from %s: Access-Control-Allow-Origin", origin)
					assert.Contains(t, strings.ToLower(h2.Get("Access-Control-Expose-Headers")), "x-request-id", "GET from %s: Access-Control-Expose-Headers", origin)
					continue
				}
				if tt.cors != "" {
					assert.Equal(t, 403, status, "preflight from %s, not allowed", origin)
				} else {
					assert.NotEqual(t, 204, status, "preflight without -cors")
				}
				assert.Empty(t, h.Get("Access-Control-Allow-Origin"), "preflight from %s: Access-Control-Allow-Origin", origin)
				assert.Empty(t, h2.Get("Access-Control-Allow-Origin"), "GET from %s: Access-Control-Allow-Origin", origin)
			}
		})
	}
}

func TestRunState(t *testing.T) {
	const key = "5e4d3c2b-1a09-4f8e-9d7c-6b5a49382716"
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"-addr", "127.0.0.1:0", "-api-key", key, "-state", state}
	m := mStart(t, args...)
	ctx := t.Context()
	c := mClient(t, m, key)
	p, err := c.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Kept", Description: "across restarts"})
	require.NoError(t, err)
	it, err := c.CreateTextItem(ctx, p.DefaultFolder().ID, mPassport, profilesvc.CreateItemParams{Name: "passport.txt"})
	require.NoError(t, err)
	_, err = os.Stat(state)
	require.ErrorIs(t, err, fs.ErrNotExist, "the state file before anything wrote it")

	// POST /_mock/snapshot writes it while the server runs.
	status, body := mRequest(t, "POST", m.URL+"/_mock/snapshot", key, "")
	require.Equal(t, 200, status, "POST /_mock/snapshot: %s", body)
	var saved struct {
		Path string `json:"path"`
	}
	require.NoError(t, json.Unmarshal(body, &saved))
	assert.Equal(t, state, saved.Path, "the path POST /_mock/snapshot names")
	raw, err := os.ReadFile(state)
	require.NoError(t, err, "the state file after POST /_mock/snapshot")
	var file struct {
		Profiles []struct{ ID, Name string } `json:"profiles"`
		Items    []struct{ ID, Name string } `json:"items"`
	}
	require.NoError(t, json.Unmarshal(raw, &file), "the state file: %.300s", raw)
	assert.True(t, slices.ContainsFunc(file.Profiles, func(x struct{ ID, Name string }) bool { return x.ID == p.ID && x.Name == "Kept" }),
		"the state file's profiles %+v lack %s", file.Profiles, p.ID)
	assert.True(t, slices.ContainsFunc(file.Items, func(x struct{ ID, Name string }) bool { return x.ID == it.ID }),
		"the state file's items %+v lack %s", file.Items, it.ID)

	// A profile made after that is written when the run stops.
	later, err := c.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Later"})
	require.NoError(t, err)
	require.NoError(t, m.stop(t), "run after its context ended")

	m2 := mStart(t, args...)
	c2 := mClient(t, m2, key)
	got, err := c2.GetProfile(ctx, p.ID)
	require.NoError(t, err, "the profile after a restart with the same -state")
	assert.True(t, got.Name == "Kept" && got.Description == "across restarts" && got.ItemsCount == 1, "profile after the restart = %+v", got)
	gotItem, err := c2.GetItem(ctx, it.ID)
	require.NoError(t, err, "the item after a restart")
	assert.Equal(t, "passport.txt", gotItem.Name)
	assert.True(t, strings.HasPrefix(gotItem.StorageOriginalURL, m2.URL+"/"), "the item's URL %q: want the new run's address %s", gotItem.StorageOriginalURL, m2.URL)
	status, data := mRequest(t, "GET", gotItem.StorageOriginalURL, key, "")
	assert.True(t, status == 200 && string(data) == mPassport, "the item's bytes after the restart: %d %q", status, data)
	_, err = c2.GetProfile(ctx, later.ID)
	assert.NoError(t, err, "the profile made after POST /_mock/snapshot, written at the stop")
}
