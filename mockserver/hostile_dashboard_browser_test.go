package mockserver_test

// The dashboard in a real browser, fed hostile strings by every way the
// server has of sending one: names, descriptions, metadata, item statuses
// and content types, workflow names, analysis errors, faults, recorded
// paths, queries, headers and bodies, and error messages. None may run
// as script or become markup, and the API key may travel nowhere but in
// the x-api-key header of the page's own origin.

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// Hostile strings, each to be shown as the text it is.
const (
	xssImg    = `<img src=x onerror=alert(1)>`
	xssJSURL  = `javascript:alert(1)`
	xssSVG    = `<svg onload=alert(2)>`
	xssAttr   = `"><img src=x onerror=alert(3)>`
	xssScript = `</code><script>alert(4)</script>`
)

// trap records what the page does that it must not: dialogs opened, and
// every request the browser sends, with the headers it carries.
type trap struct {
	mu       sync.Mutex
	dialogs  []string
	requests []trapRequest
}

type trapRequest struct {
	url    string
	header map[string]any
}

func (tr *trap) listen(ev any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch ev := ev.(type) {
	case *cdppage.EventJavascriptDialogOpening:
		tr.dialogs = append(tr.dialogs, string(ev.Type)+": "+ev.Message)
	case *network.EventRequestWillBeSent:
		tr.requests = append(tr.requests, trapRequest{url: ev.Request.URL, header: ev.Request.Headers})
	}
}

func (tr *trap) snapshot() ([]string, []trapRequest) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.dialogs...), append([]trapRequest(nil), tr.requests...)
}

// evalJS evaluates an expression in the tab.
func evalJS[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	require.NoError(p.t, err, "evaluate %s", expr)
	return v
}

func TestHostileDashboardShowsHostileStringsAsText(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())

	// Hostile state, through the kit.
	require.NoError(t, srv.AddWorkflow(mockserver.Workflow{ID: "wf_hostile", Name: xssImg}))
	prof, err := srv.CreateProfile("wf_hostile", profilesvc.CreateProfileParams{Name: xssImg, Description: xssScript,
		Metadata: map[string]any{xssSVG: xssJSURL}})
	require.NoError(t, err)
	second, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: xssJSURL})
	require.NoError(t, err)
	folder, err := srv.CreateFolder(prof.ID, xssSVG)
	require.NoError(t, err)
	item, err := srv.AddTextItem(folder.ID, xssAttr, identityDoc)
	require.NoError(t, err)
	odd, err := srv.AddTextItem(prof.Folders[0].ID, xssJSURL, identityDoc)
	require.NoError(t, err)
	require.NoError(t, srv.SetItemStatus(odd.ID, profilesvc.ItemStatus(xssImg)))
	failed := startAnalysis(t, srv, prof.ID, item.ID)
	require.NoError(t, srv.FailAnalysis(failed, xssScript))
	_, err = srv.InjectFault(mockserver.Fault{Method: "DELETE", Path: "/v1/" + xssSVG, Status: 418, Code: xssAttr, Message: xssImg})
	require.NoError(t, err)

	tr := &trap{}
	p := openDashboard(t, srv)
	require.NoError(t, chromedp.Listen(p.ctx, tr.listen))

	// Hostile requests in the record: a query, a header and a body.
	headerReq := sendRaw(t, srv, "GET", "/v1/profiles?x=<svg/onload=alert(5)>", map[string]string{"x-api-key": srv.APIKey, "X-Evil": xssImg})
	r := do(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": xssScript})
	wantStatus(t, r, 201)
	headerRow := attr("request", "request-id", headerReq.Header.Get("X-Request-Id"))
	bodyRow := attr("request", "request-id", r.Header.Get("X-Request-Id"))

	p.do("the hostile profiles", chromedp.WaitVisible(css(attr("profile", "id", prof.ID))), chromedp.WaitVisible(css(attr("profile", "id", second.ID))),
		chromedp.WaitVisible(css(attr("item", "id", odd.ID))), chromedp.WaitVisible(css(attr("analysis", "id", failed))),
		chromedp.WaitVisible(css(`[data-testid="fault"]`)))
	assert.Equal(t, xssImg, p.text(attr("profile", "id", prof.ID)+` [data-testid="profile-name"]`))
	assert.Equal(t, xssJSURL, p.text(attr("profile", "id", second.ID)+` [data-testid="profile-name"]`))
	assert.Contains(t, p.text(attr("analysis", "id", failed)+` [data-testid="analysis-error"]`), xssScript)
	assert.Contains(t, p.text(`[data-testid="fault"]`), xssImg)
	assert.Contains(t, p.text(`[data-testid="workflows"]`), xssImg)

	// The exchange of the hostile header, opened.
	p.do("the hostile requests", chromedp.WaitVisible(css(headerRow)), chromedp.WaitVisible(css(bodyRow)))
	assert.Contains(t, p.text(headerRow), "<svg/onload=alert(5)>", "the query, as text")
	p.do("open the hostile request", chromedp.Click(css(headerRow+` [data-testid="request-open"]`)),
		chromedp.WaitVisible(css(`[data-testid="request-detail-status"]`)))
	assert.Contains(t, p.text(`[data-testid="request-detail"]`), xssImg, "the header, as text")
	p.do("open the hostile body", chromedp.Click(css(bodyRow+` [data-testid="request-open"]`)),
		chromedp.WaitVisible(css(`[data-testid="request-body"]`)))
	assert.Contains(t, p.text(`[data-testid="request-body"]`), "</code><script>", "the body, as text")

	// An error message that echoes a hostile value.
	p.expectNetworkError()
	p.do("a hostile filter the server refuses",
		chromedp.SendKeys(css(`[data-testid="requests-filter-path"]`), "/v1/["+xssImg),
		chromedp.Click(css(`[data-testid="requests-filter-apply"]`)),
		chromedp.WaitVisible(css(`[data-testid="alert"]`)))
	assert.Contains(t, p.text(`[data-testid="alert"]`), "<img src=x", "the server's message, as text")

	// Nothing became markup or ran.
	injected := evalJS[int](p, `document.querySelectorAll('img, svg, iframe, object, embed, script:not([src]), [onerror], [onload], [onclick]').length`)
	assert.Zero(t, injected, "elements made of the hostile strings")
	hrefs := evalJS[[]string](p, `Array.from(document.querySelectorAll('[href]'), a => a.getAttribute('href'))`)
	for _, h := range hrefs {
		assert.True(t, strings.HasPrefix(h, "#") || strings.HasPrefix(h, "/_mock/ui/") || strings.HasPrefix(h, "blob:") || h == "data:,", "href %q", h)
	}
	// The key is in no address, in no markup, not in local storage, and
	// travels to the page's origin only.
	assert.NotContains(t, evalJS[string](p, `document.documentElement.outerHTML`), srv.APIKey)
	assert.NotContains(t, evalJS[string](p, `location.href`), srv.APIKey)
	assert.Zero(t, evalJS[int](p, `localStorage.length`))
	dialogs, reqs := tr.snapshot()
	assert.Empty(t, dialogs, "dialogs opened")
	require.NotEmpty(t, reqs)
	for _, rq := range reqs {
		assert.True(t, strings.HasPrefix(rq.url, srv.URL+"/"), "a request to %s", rq.url)
		assert.NotContains(t, rq.url, srv.APIKey)
		assert.NotContains(t, rq.url, "/x", "the hostile image's source was fetched")
	}
	assert.Empty(t, p.consoleErrors(), "the console's errors")
}

// openBrowserAt opens a tab on url, as openDashboard does, without
// entering a key.
func openBrowserAt(t *testing.T, url string) *page {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800),
	)
	// A hang guard only: each step waits for the event it needs.
	base, cancelBase := context.WithTimeout(context.Background(), 3*time.Minute)
	actx, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		_ = chromedp.Cancel(ctx)
		cancelTab()
		cancelAlloc()
		cancelBase()
	})
	p := &page{t: t, ctx: ctx, download: t.TempDir(), downloads: make(chan string, 4)}
	require.NoError(t, chromedp.Listen(ctx, p.listen), "start the browser")
	p.do("open the dashboard", chromedp.Navigate(url), chromedp.WaitVisible(css(`[data-testid="api-key-input"]`)))
	return p
}

// A proxy serves the dashboard and keeps a request record, but its state
// routes answer 409 PROXY_MODE: the page takes that answer to its check
// of the key as a proxy's, says so, and shows the proxy's Requests.
func TestHostileDashboardOnAProxy(t *testing.T) {
	t.Parallel()
	px := proxyToMissingService(t)
	rec := serveVia(t, px, "GET", "/v1/profiles/pf_1", "k")
	require.Equal(t, http.StatusNotFound, rec.Code)
	requestID := rec.Header().Get("X-Request-Id")

	p := openBrowserAt(t, px.URL+"/_mock/ui")
	p.expectNetworkError() // the 409 of the state
	p.do("enter the proxy's key",
		chromedp.SendKeys(css(`[data-testid="api-key-input"]`), px.APIKey),
		chromedp.Click(css(`[data-testid="api-key-submit"]`)))
	// Whichever comes first: the dashboard, or a message.
	_, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`!document.getElementById('main').hidden || document.getElementById('alert').textContent !== ''`))
	require.NoError(t, err)
	hidden := evalJS[bool](p, `document.getElementById('main').hidden`)
	alert := evalJS[string](p, `document.getElementById('alert').textContent`)
	require.False(t, hidden, "the dashboard on a proxy stays behind its key panel, saying: %s", alert)
	p.do("the proxy's request in Requests", chromedp.WaitVisible(css(attr("request", "request-id", requestID))))
}

// Once the page has the key, it keeps it in session storage alone: the
// key panel's password field, hidden, holds it no longer, so that it
// cannot be read back from the DOM.
func TestHostileDashboardEmptiesTheKeyField(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	p := openDashboard(t, srv)
	assert.True(t, evalJS[bool](p, `document.getElementById('key-panel').hidden`))
	assert.Empty(t, evalJS[string](p, `document.getElementById('api-key-input').value`), "the hidden key field still holds the key")
}
