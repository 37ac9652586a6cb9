package mockserver_test

// The errors of the test kit: they match the profilesvc sentinels of their
// code and status with errors.Is, as the SDK's errors do, and no others.

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitErrorsMatchSentinels(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, fid, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	completed := startAnalysis(t, srv, pid, iid)
	require.NoError(t, srv.CompleteAnalysis(completed))
	errOf := func(_ any, err error) error { return err }

	tests := []struct {
		name  string
		err   error
		is    []error // sentinels the error must match
		isNot []error // sentinels it must not
	}{
		{
			name:  "CreateFolder in a missing profile",
			err:   errOf(srv.CreateFolder("pf_missing", "x")),
			is:    []error{profilesvc.ErrProfileNotFound, profilesvc.ErrNotFound},
			isNot: []error{profilesvc.ErrFolderNotFound, profilesvc.ErrValidation, profilesvc.ErrServer},
		},
		{
			name:  "CreateFolder with an empty name",
			err:   errOf(srv.CreateFolder(pid, "")),
			is:    []error{profilesvc.ErrValidation},
			isNot: []error{profilesvc.ErrNotFound, profilesvc.ErrProfileNotFound},
		},
		{
			name:  "CreateProfile in a missing workflow",
			err:   errOf(srv.CreateProfile("wf_missing", profilesvc.CreateProfileParams{Name: "x"})),
			is:    []error{profilesvc.ErrWorkflowNotFound, profilesvc.ErrNotFound},
			isNot: []error{profilesvc.ErrProfileNotFound, profilesvc.ErrValidation},
		},
		{
			name:  "SetVerificationStatus of a missing analysis",
			err:   srv.SetVerificationStatus("analysis_missing", profilesvc.VerificationApproved),
			is:    []error{profilesvc.ErrAnalysisNotFound, profilesvc.ErrNotFound},
			isNot: []error{profilesvc.ErrProfileNotFound, profilesvc.ErrValidation},
		},
		{
			name:  "SetVerificationStatus with a bad status",
			err:   srv.SetVerificationStatus(completed, "maybe"),
			is:    []error{profilesvc.ErrValidation},
			isNot: []error{profilesvc.ErrNotFound, profilesvc.ErrAnalysisNotFound},
		},
		{
			name:  "StartProcessing of a completed analysis",
			err:   srv.StartProcessing(completed),
			isNot: []error{profilesvc.ErrNotFound, profilesvc.ErrAnalysisNotFound, profilesvc.ErrAnalysisInProgress, profilesvc.ErrValidation, profilesvc.ErrServer},
		},
		{
			name:  "CompleteAnalysis of a missing analysis",
			err:   srv.CompleteAnalysis("analysis_missing"),
			is:    []error{profilesvc.ErrAnalysisNotFound, profilesvc.ErrNotFound},
			isNot: []error{profilesvc.ErrItemNotFound},
		},
		{
			name:  "AddItem with a bad type",
			err:   errOf(srv.AddItem(fid, mockserver.SeedItem{Type: "pdf", Name: "a"})),
			is:    []error{profilesvc.ErrValidation},
			isNot: []error{profilesvc.ErrNotFound, profilesvc.ErrFolderNotFound},
		},
		{
			name:  "AddItem in a missing folder",
			err:   errOf(srv.AddItem("fld_missing", mockserver.SeedItem{Type: profilesvc.ItemText, Name: "a", Content: json.RawMessage(`"x"`)})),
			is:    []error{profilesvc.ErrFolderNotFound, profilesvc.ErrNotFound},
			isNot: []error{profilesvc.ErrValidation, profilesvc.ErrProfileNotFound},
		},
		{
			name:  "SetItemStatus of a missing item",
			err:   srv.SetItemStatus("item_missing", profilesvc.ItemActive),
			is:    []error{profilesvc.ErrItemNotFound, profilesvc.ErrNotFound},
			isNot: []error{profilesvc.ErrFolderNotFound},
		},
		{
			name:  "InjectFault with nothing to do",
			err:   errOf(srv.InjectFault(mockserver.Fault{Path: "/v1/*"})),
			is:    []error{profilesvc.ErrValidation},
			isNot: []error{profilesvc.ErrNotFound, profilesvc.ErrServer},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Error(t, tt.err, "the kit's call succeeded")
			for _, s := range tt.is {
				assert.ErrorIs(t, tt.err, s, "the kit's error %q", tt.err)
			}
			for _, s := range tt.isNot {
				assert.NotErrorIs(t, tt.err, s, "the kit's error %q", tt.err)
			}
		})
	}
}
