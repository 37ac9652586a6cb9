package mockserver_test

// The dashboard (GET /_mock/ui) driven in a real browser: headless
// Chromium through the Chrome DevTools Protocol. Screenshots of each state
// go to the directory of -shots, for a person to look at:
//
//	go test ./mockserver -run TestDashboardInBrowser -args -shots /tmp/shots

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

var shotsDir = flag.String("shots", "", "write the browser tests' screenshots (PNG) to this directory")

// requireBrowserEnv, set to "required", makes a machine without Chromium
// fail the browser tests rather than skip them: CI sets it.
const requireBrowserEnv = "PROFILESVC_BROWSER_TESTS"

// chromiumPath finds the browser to drive: $PROFILESVC_CHROMIUM, else
// Chromium or Chrome on the PATH. Without one the test is skipped, saying
// how to install it, or fails under PROFILESVC_BROWSER_TESTS=required.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PROFILESVC_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium on this machine, so the dashboard's browser tests cannot run: install it (Debian and Ubuntu: apt-get install -y chromium) or set PROFILESVC_CHROMIUM to its path"
	if os.Getenv(requireBrowserEnv) == "required" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// page is a browser tab on the dashboard, which collects the console's
// errors and the page's uncaught exceptions.
type page struct {
	t        *testing.T
	ctx      context.Context
	download string // where downloads land

	downloads chan string // the files downloaded

	mu     sync.Mutex
	errors []string
	// expected are the network errors the test provokes on purpose: the
	// browser logs a "Failed to load resource" line for each answer of
	// status 400 or more that the page's fetch gets.
	expected int
	shots    int
}

// openDashboard starts Chromium, opens srv's dashboard in a 1280×800 tab
// and enters the key. The browser is closed when the test ends.
func openDashboard(t *testing.T, srv *mockserver.Server) *page {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox will not start
		chromedp.WindowSize(1280, 800),
	)
	// A hang guard only: each step waits for the event it needs.
	base, cancelBase := context.WithTimeout(context.Background(), 3*time.Minute)
	actx, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		_ = chromedp.Cancel(ctx) // closes the browser and waits for it
		cancelTab()
		cancelAlloc()
		cancelBase()
	})
	p := &page{t: t, ctx: ctx, download: t.TempDir(), downloads: make(chan string, 4)}
	// Listen, not an iterator: the callback sees each event before the
	// command that follows it returns, so that the last check of the
	// console misses nothing.
	require.NoError(t, chromedp.Listen(ctx, p.listen), "start the browser")
	require.NoError(t, chromedp.ListenBrowser(ctx, p.listenBrowser))
	_, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{})
	require.NoError(t, err, "enable the browser log")
	_, err = chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: p.download, EventsEnabled: new(true),
	})
	require.NoError(t, err, "allow downloads")
	p.do("open the dashboard",
		chromedp.EmulateViewport(1280, 800), // the page is to be usable at 1280×800
		chromedp.Navigate(srv.URL+"/_mock/ui"),
		chromedp.WaitVisible(css(`[data-testid="api-key-input"]`)),
	)
	p.shot("key")
	p.do("enter the key",
		chromedp.SendKeys(css(`[data-testid="api-key-input"]`), srv.APIKey),
		chromedp.Click(css(`[data-testid="api-key-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="section-profiles"]`)),
		chromedp.WaitVisible(css(`[data-testid="api-key-status"]`)),
	)
	return p
}

// listen keeps the console's errors and the uncaught exceptions.
func (p *page) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			p.errors = append(p.errors, "console."+string(ev.Type)+": "+strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		p.errors = append(p.errors, "uncaught: "+ev.ExceptionDetails.Text+" "+exceptionDescription(ev.ExceptionDetails))
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level != cdplog.EntryLevelError {
			return
		}
		if ev.Entry.Source == cdplog.EntrySourceNetwork && p.expected > 0 {
			p.expected--
			return
		}
		p.errors = append(p.errors, fmt.Sprintf("log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
	}
}

// exceptionDescription is what an exception's value says of it.
func exceptionDescription(d *runtime.ExceptionDetails) string {
	if d == nil || d.Exception == nil {
		return ""
	}
	return d.Exception.Description
}

// listenBrowser passes on the files the browser finished downloading.
func (p *page) listenBrowser(ev any) {
	if e, ok := ev.(*browser.EventDownloadProgress); ok && e.State == browser.DownloadProgressStateCompleted {
		select {
		case p.downloads <- filepath.Join(p.download, e.GUID):
		default:
		}
	}
}

// expectNetworkError says the next answer of 400 or more that the page
// gets is provoked by the test.
func (p *page) expectNetworkError() {
	p.mu.Lock()
	p.expected++
	p.mu.Unlock()
}

// consoleErrors returns what the console said was wrong so far.
func (p *page) consoleErrors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// css selects the first element that matches a CSS selector.
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// do runs steps in the tab, failing the test with what was being done.
func (p *page) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	require.NoError(p.t, chromedp.Do(p.ctx, steps...), "%s", what)
}

// text returns the text of the first element sel selects.
func (p *page) text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Text(css(sel)))
	require.NoError(p.t, err, "read %s", sel)
	return s
}

// waitText waits until the first element sel selects says want (its text,
// trimmed).
func (p *page) waitText(sel, want string) {
	p.t.Helper()
	_, err := chromedp.Run(p.ctx, chromedp.PollFunction[bool](
		`(sel, want) => { const e = document.querySelector(sel); return !!e && e.textContent.trim() === want; }`,
		chromedp.WithPollingArgs(sel, want),
		chromedp.WithPollingTimeout(2*time.Minute), // a hang guard only
	))
	require.NoError(p.t, err, "wait until %s says %q", sel, want)
}

// waitGone waits until no element matches sel.
func (p *page) waitGone(sel string) {
	p.t.Helper()
	p.do("wait until "+sel+" is gone", chromedp.WaitNotPresent(css(sel)))
}

// shot writes a screenshot of the tab, named by the state it shows, when
// -shots is given.
func (p *page) shot(name string) {
	p.t.Helper()
	if *shotsDir == "" {
		return
	}
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	require.NoError(p.t, err, "screenshot %s", name)
	p.shots++
	require.NoError(p.t, os.MkdirAll(*shotsDir, 0o755))
	require.NoError(p.t, os.WriteFile(filepath.Join(*shotsDir, fmt.Sprintf("%02d-%s.png", p.shots, name)), png, 0o644))
}

// attr is the selector of the element with a data-testid and a data-*
// attribute of a value.
func attr(testid, name, value string) string {
	return fmt.Sprintf(`[data-testid=%q][data-%s=%q]`, testid, name, value)
}

func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	sdk := newSDK(t, srv)
	ctx := t.Context()
	p := openDashboard(t, srv)

	// A profile created through the API appears.
	created, err := sdk.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe <script>alert(1)</script>"})
	require.NoError(t, err)
	profile := attr("profile", "id", created.ID)
	p.do("the new profile", chromedp.WaitVisible(css(profile)))
	assert.Contains(t, p.text(profile+` [data-testid="profile-name"]`), "Jane Doe <script>", "the name, as text")
	p.shot("profile")

	// A request with an unknown ID appears in Requests with its 404 and
	// its request ID.
	_, err = sdk.GetAnalysis(ctx, "analysis_unknown0000000000", nil)
	var apiErr *profilesvc.APIError
	require.True(t, errors.As(err, &apiErr), "%v", err)
	require.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	require.NotEmpty(t, apiErr.RequestID)
	row := attr("request", "request-id", apiErr.RequestID)
	p.do("the 404 in Requests", chromedp.WaitVisible(css(row)))
	rowText := p.text(row)
	assert.Contains(t, rowText, "404")
	assert.Contains(t, rowText, apiErr.RequestID)
	assert.Contains(t, rowText, "/v1/analyses/analysis_unknown0000000000")
	p.shot("requests")

	// Complete, on a manual analysis, completes it.
	item, err := sdk.CreateTextItem(ctx, created.Folders[0].ID, identityDoc, profilesvc.CreateItemParams{Name: "passport.txt"})
	require.NoError(t, err)
	id, err := sdk.StartAnalysis(ctx, created.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})
	require.NoError(t, err)
	analysis := attr("analysis", "id", id)
	p.do("the pending analysis", chromedp.WaitVisible(css(analysis+`[data-status="pending"]`)))
	p.shot("analysis-pending")
	p.do("Complete", chromedp.Click(css(analysis+` [data-testid="analysis-complete"]`)),
		chromedp.WaitVisible(css(analysis+`[data-status="completed"]`)))
	a, err := sdk.GetAnalysis(ctx, id, nil)
	require.NoError(t, err)
	assert.Equal(t, profilesvc.AnalysisCompleted, a.Status, "completed, through the API")
	assert.Equal(t, "completed", strings.TrimSpace(p.text(analysis+` [data-testid="analysis-status"]`)))
	p.do("the completed analysis's controls", chromedp.WaitVisible(css(analysis+` [data-testid="analysis-approve"]`)))
	p.shot("analysis-completed")

	// From the keyboard: Approve, focused and pressed with Enter.
	p.do("Approve, from the keyboard",
		chromedp.Focus(css(analysis+` [data-testid="analysis-approve"]`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(css(analysis+` [data-testid="analysis-verification"]`)),
	)
	p.waitText(analysis+` [data-testid="analysis-verification"]`, "approved")
	a, err = sdk.GetAnalysis(ctx, id, nil)
	require.NoError(t, err)
	assert.Equal(t, profilesvc.VerificationApproved, a.VerificationStatus, "approved, through the API")

	// A fault added in the form is in force; Remove removes it.
	p.do("add a fault",
		chromedp.SetValue(css(`[data-testid="fault-method"]`), "GET"),
		chromedp.SendKeys(css(`[data-testid="fault-path"]`), "/v1/profiles/*"),
		chromedp.SendKeys(css(`[data-testid="fault-status"]`), "503"),
		chromedp.Click(css(`[data-testid="fault-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="fault"]`)),
	)
	faults := srv.Faults()
	require.Len(t, faults, 1)
	assert.Equal(t, "GET", faults[0].Method)
	assert.Equal(t, "/v1/profiles/*", faults[0].Path)
	assert.Equal(t, http.StatusServiceUnavailable, faults[0].Status)
	wantError(t, do(t, srv, "GET", "/v1/profiles/"+created.ID, nil), http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	p.shot("fault")
	p.do("remove the fault", chromedp.Click(css(attr("fault", "id", faults[0].ID)+` [data-testid="fault-remove"]`)))
	p.waitGone(`[data-testid="fault"]`)
	assert.Empty(t, srv.Faults())
	wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+created.ID, nil), http.StatusOK)

	// A control API error is a message on the page.
	p.expectNetworkError()
	p.do("a fault the control API refuses",
		chromedp.SetValue(css(`[data-testid="fault-status"]`), ""),
		chromedp.SendKeys(css(`[data-testid="fault-status"]`), "700"),
		chromedp.Click(css(`[data-testid="fault-submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="alert"]`)),
	)
	assert.Contains(t, p.text(`[data-testid="alert"]`), "status", "the server's message, naming the field")
	assert.Empty(t, srv.Faults())
	p.do("scroll to the message", chromedp.ScrollIntoView(css(`[data-testid="alert"]`)))
	p.shot("alert")

	// A snapshot downloaded, then restored after a reset, brings the
	// profile back.
	p.do("download the snapshot", chromedp.Click(css(`[data-testid="snapshot-download"]`)))
	var file string
	select {
	case file = <-p.downloads:
	case <-p.ctx.Done():
		t.Fatal("the snapshot was never downloaded")
	}
	saved, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(saved), created.ID, "the snapshot holds the profile")
	snapshotFile := filepath.Join(t.TempDir(), "snapshot.json")
	require.NoError(t, os.WriteFile(snapshotFile, saved, 0o644))

	p.do("reset",
		chromedp.Click(css(`[data-testid="reset"]`)),
		chromedp.WaitVisible(css(`[data-testid="reset-confirm"]`)),
		chromedp.Click(css(`[data-testid="reset-confirm"]`)),
	)
	p.waitGone(profile)
	_, found := srv.Profile(created.ID)
	require.False(t, found, "reset through the page")
	p.shot("reset")
	p.do("restore the snapshot",
		chromedp.SetUploadFiles(css(`[data-testid="snapshot-file"]`), []string{snapshotFile}),
		chromedp.Click(css(`[data-testid="snapshot-restore"]`)),
		chromedp.WaitVisible(css(profile)),
	)
	back, err := sdk.GetProfile(ctx, created.ID)
	require.NoError(t, err, "the profile, back through the API")
	assert.Equal(t, created.Name, back.Name)
	p.shot("restored")

	assert.Empty(t, p.consoleErrors(), "the console's errors")
}
