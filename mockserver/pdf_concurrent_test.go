package mockserver

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// TestReportsRenderConcurrently renders reports in parallel, sharing the
// parsed font: under -race this proves the sharing safe, and every copy
// must equal the one rendered alone.
func TestReportsRenderConcurrently(t *testing.T) {
	srv := NewTest(t, WithManualAnalyses(), WithClock(NewFakeClock(time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC))))
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		t.Fatal(err)
	}
	it, _ := srv.AddTextItem(p.Folders[0].ID, "passport.txt", enginePassport)
	id, e := srv.startAnalysis(p.ID, []string{it.ID}, nil, nil)
	if e != nil {
		t.Fatal(e)
	}
	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatal(err)
	}
	a, _ := srv.Analysis(id)
	variants := []reportData{
		{analysis: *a, profileName: "Jane Doe", locale: "en"},
		{analysis: *a, profileName: "김민준 Müller", locale: "ko", rawData: true},
	}
	want := make([][]byte, len(variants))
	for i, d := range variants {
		if want[i], err = renderReport(d); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for n := 0; n < 8; n++ {
		for i, d := range variants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := renderReport(d)
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got, want[i]) {
					t.Errorf("variant %d rendered in parallel differs from the one rendered alone", i)
				}
			}()
		}
	}
	wg.Wait()
}
