// Package origin compares and normalises web origins (scheme, host and
// port), for the rules that keep the API key within the service's origin
// (the SDK's and the contract suite's redirects) and for the origins the
// mock's CORS allows.
package origin

import (
	"net"
	"net/url"
	"strconv"
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
// scheme and host in lower case, the port as a plain number, and none
// when it is the scheme's default; false when s is not such an origin:
// http or https, a host name of ASCII letters, digits, - and . (a browser
// sends an international name in its punycode form, xn--..., and no
// wildcard) or an IP address, a port from 1 to 65535, and no user, path,
// query or fragment.
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
	host, ok := normalHost(u.Hostname())
	if !ok {
		return "", false
	}
	n := 0
	if p := u.Port(); p != "" {
		if n, err = strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", false
		}
	}
	if n == 0 || (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
		return scheme + "://" + host, true
	}
	return scheme + "://" + host + ":" + strconv.Itoa(n), true
}

// normalHost returns a host in lower case, an IPv6 address in brackets;
// false when it is neither an IP address nor a name of ASCII letters,
// digits, - and . (a wildcard, an international name not in its xn--
// form, a character no host name has: none of these is what a browser
// sends).
func normalHost(h string) (string, bool) {
	h = strings.ToLower(h)
	if strings.Contains(h, ":") {
		return "[" + h + "]", net.ParseIP(h) != nil
	}
	return h, h != "" && !strings.ContainsFunc(h, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-' || r == '.')
	})
}
