package mockserver_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// exampleT stands in for a test's *testing.T in the examples, which have
// none: it runs the cleanups at the end and prints what a test would
// report.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }
func (t *exampleT) Error(args ...any)                 { fmt.Println("test failed:", fmt.Sprint(args...)) }
func (t *exampleT) Errorf(format string, args ...any) {
	fmt.Println("test failed:", fmt.Sprintf(format, args...))
}

// done runs the cleanups, last first, as the end of a test does.
func (t *exampleT) done() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

func ExampleNewTest() {
	t := &exampleT{} // in a test: its t
	defer t.done()

	srv := mockserver.NewTest(t) // closed when the test ends
	client := srv.Client()       // an SDK client of it
	ctx := context.Background()

	profile, err := client.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		t.Fatalf("%v", err)
	}
	item, _ := srv.AddTextItem(profile.DefaultFolder().ID, "passport", "PASSPORT\nFull Name: Jane Doe\n")
	id, _ := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})
	// NewTest's analyses take 100ms.
	analysis, err := client.WaitForAnalysis(ctx, id, nil)
	if err != nil {
		t.Fatalf("%v", err)
	}
	fmt.Println(analysis.Status, analysis.PrimaryReportID != nil)
	// Output: completed true
}

func ExampleFakeClock_BlockUntil() {
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC))
	srv := mockserver.New(mockserver.WithClock(clock), mockserver.WithAnalysisDuration(3*time.Second))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	item, _ := srv.AddTextItem(profile.DefaultFolder().ID, "passport", "PASSPORT\nFull Name: Jane Doe\n")
	id, _ := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})

	// The run arms two timers: processing at 0.3s, completed at 3s. Wait
	// for them to be armed, never for a fixed time, then move the clock.
	if err := clock.BlockUntil(ctx, 2); err != nil {
		log.Fatal(err)
	}
	clock.Advance(3 * time.Second)
	a, _ := srv.Analysis(id)
	fmt.Println(a.Status, a.CompletedAt.Format(time.TimeOnly))
	// Output: completed 09:00:03
}

func ExampleTenant_AwaitRequest() {
	srv := mockserver.New()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// The code under test works in the background...
	go func() {
		_, _ = srv.Client().CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	}()

	// ...and the test waits for the request it sends.
	r, err := srv.AwaitRequest(ctx, mockserver.RequestMatch{Method: "POST", Path: "/v1/workflows/*/profiles"})
	if err != nil {
		log.Fatal(err)
	}
	var body struct{ Name string }
	_ = r.DecodeJSON(&body)
	fmt.Println(r.Method, r.Path, r.Status, body.Name)
	// Output: POST /v1/workflows/wf_default/profiles 201 Jane Doe
}

func ExampleTenant_ExpectRequests() {
	t := &exampleT{} // in a test: its t
	defer t.done()
	srv := mockserver.NewTest(t, mockserver.WithIDSeed(1))
	client := srv.Client()
	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	_, _ = client.ListFoldersPage(ctx, profile.ID, &profilesvc.ListFoldersParams{Limit: 5})

	// Passes: one listing of the profile's folders.
	srv.ExpectRequests(t, mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/*/folders"}, 1)
	// Fails, and shows the request that came closest: its query differs.
	srv.ExpectRequests(t, mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/*/folders", Query: map[string][]string{"limit": {"10"}}}, 1)
	// Output:
	// test failed: mockserver: 0 requests match GET /v1/profiles/*/folders?limit=10, want 1 (of 2 recorded)
	// near misses:
	//   GET /v1/profiles/pf_xmw7thnjzq3vpd9hj6p2/folders?limit=5 → 200 (differs in query)
}

func ExampleTenant_InjectFault() {
	srv := mockserver.New()
	defer srv.Close()
	ctx := context.Background()
	profile, _ := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})

	// The next two reads of a profile fail with 503, as a busy service's
	// would; the SDK retries them.
	if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, Times: 2}); err != nil {
		log.Fatal(err)
	}
	client := srv.Client(profilesvc.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	got, err := client.GetProfile(ctx, profile.ID)
	if err != nil {
		log.Fatal(err)
	}
	var statuses []string
	for _, r := range srv.RequestsMatching(mockserver.RequestMatch{Method: "GET", Path: "/v1/profiles/*"}) {
		statuses = append(statuses, fmt.Sprint(r.Status))
	}
	fmt.Println(got.Name, strings.Join(statuses, " "))
	// Output: Jane Doe 503 503 200
}

func ExampleServer_Snapshot() {
	srv := mockserver.New()
	defer srv.Close()
	// A fixture built once...
	for _, name := range []string{"Jane Doe", "John Roe"} {
		p, _ := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: name})
		_, _ = srv.AddTextItem(p.Folders[0].ID, "passport", "PASSPORT\nFull Name: "+name+"\n")
	}
	snap, err := srv.Snapshot()
	if err != nil {
		log.Fatal(err)
	}

	// ...that a test changes...
	for _, p := range srv.Profiles() {
		_ = srv.Client().DeleteProfile(context.Background(), p.ID)
	}
	fmt.Println("after the test:", len(srv.Profiles()))

	// ...and restored for the next.
	if err := srv.Restore(snap); err != nil {
		log.Fatal(err)
	}
	for _, p := range srv.Profiles() {
		fmt.Println(p.Name, p.ItemsCount)
	}
	// Output:
	// after the test: 0
	// Jane Doe 1
	// John Roe 1
}
