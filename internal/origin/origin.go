// Package origin compares and normalises web origins (scheme, host and
// port), for the rules that keep the API key within the service's origin
// (the SDK's and the contract suite's redirects) and for the origins the
// mock's CORS allows.
package origin

import (
	"net/url"
	"strings"
)

// Same reports whether two URLs have the same origin: the same scheme,
// host and port, in any case, a missing port being the scheme's own.
func Same(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// port is u's port, or its scheme's default one.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// Normal returns an origin as browsers send it in an Origin header: the
// scheme and host in lower case, no port when it is the scheme's default;
// false when s is not an origin (http or https, a host, and no user,
// path, query or fragment).
func Normal(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" ||
		(u.Path != "" && u.Path != "/") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := port(u); (scheme == "http" && p == "80") || (scheme == "https" && p == "443") {
		return scheme + "://" + host, true
	}
	return scheme + "://" + host + ":" + u.Port(), true
}
