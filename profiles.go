package profilesvc

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// Profile is a set of documents, kept in folders, that analyses run over.
// It belongs to a workflow.
type Profile struct {
	// ID has the prefix "pf_".
	ID string `json:"id"`
	// WorkflowID is the workflow the profile belongs to.
	WorkflowID string `json:"workflowId"`
	// Name is at most 255 characters.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Metadata    Object `json:"metadata,omitempty"`
	// ItemsCount counts the profile's items across its folders.
	ItemsCount int `json:"itemsCount"`
	// LastAnalysisAt is when an analysis of the profile last started; nil
	// before the first.
	LastAnalysisAt *time.Time `json:"lastAnalysisAt"`
	// Folders is set only in the answer to CreateProfile, where it holds the
	// default folder.
	Folders   []Folder  `json:"folders,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`

	// Raw is the profile's JSON as the service sent it, so that a field
	// this version of the SDK does not know is not lost.
	Raw RawJSON `json:"-"`
}

// UnmarshalJSON decodes the profile and keeps its JSON in Raw.
func (p *Profile) UnmarshalJSON(b []byte) error {
	type plain Profile
	if err := unmarshal(b, (*plain)(p)); err != nil {
		return err
	}
	p.Raw = append(RawJSON(nil), b...)
	return nil
}

// DefaultFolder returns the default folder of a profile returned by
// CreateProfile, the only answer that lists a profile's folders. For a
// profile from any other call (GetProfile, UpdateProfile, ListProfiles) it
// returns nil: use Client.DefaultFolder, which asks the service.
func (p *Profile) DefaultFolder() *Folder {
	for i := range p.Folders {
		if p.Folders[i].IsDefault {
			return &p.Folders[i]
		}
	}
	return nil
}

// CreateProfileParams is the body of CreateProfile.
type CreateProfileParams struct {
	// Name is required, 1 to 255 characters.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Metadata    Object `json:"metadata,omitempty"`
}

// UpdateProfileParams is the body of UpdateProfile. A nil field is left as
// it is.
type UpdateProfileParams struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
	// Metadata, when not nil, replaces the stored metadata whole; an empty
	// non-nil map (Object{}) clears it.
	Metadata Object `json:"metadata,omitempty"`
}

func (p UpdateProfileParams) body() any {
	type wire struct {
		Name        *string `json:"name,omitempty"`
		Description *string `json:"description,omitempty"`
		Metadata    *Object `json:"metadata,omitempty"`
	}
	w := wire{Name: p.Name, Description: p.Description}
	if p.Metadata != nil {
		w.Metadata = &p.Metadata
	}
	return w
}

// CreateProfile creates a profile in a workflow, with its default folder
// (see Profile.DefaultFolder).
//
// POST /v1/workflows/{workflowId}/profiles
func (c *Client) CreateProfile(ctx context.Context, workflowID string, params CreateProfileParams, opts ...RequestOption) (*Profile, error) {
	r, err := newRequest(http.MethodPost, apiroutes.WorkflowProfiles, workflowID)
	if err != nil {
		return nil, err
	}
	r.json = params
	var p Profile
	if err := c.do(ctx, r, &p, opts); err != nil {
		return nil, err
	}
	return &p, nil
}

// UpdateProfile changes a profile's name, description or metadata. The
// answer has no Folders.
//
// PATCH /v1/profiles/{profileId}
func (c *Client) UpdateProfile(ctx context.Context, profileID string, params UpdateProfileParams, opts ...RequestOption) (*Profile, error) {
	r, err := newRequest(http.MethodPatch, apiroutes.Profile, profileID)
	if err != nil {
		return nil, err
	}
	r.json = params.body()
	var p Profile
	if err := c.do(ctx, r, &p, opts); err != nil {
		return nil, err
	}
	return &p, nil
}

// DeleteProfile deletes a profile with all its folders, items and analyses.
//
// DELETE /v1/profiles/{profileId}
func (c *Client) DeleteProfile(ctx context.Context, profileID string, opts ...RequestOption) error {
	r, err := newRequest(http.MethodDelete, apiroutes.Profile, profileID)
	if err != nil {
		return err
	}
	return c.do(ctx, r, nil, opts)
}

// GetProfile returns a profile.
//
// GET /v1/profiles/{profileId} (inferred: not in the published interface;
// verified only against this project's mock server)
func (c *Client) GetProfile(ctx context.Context, profileID string, opts ...RequestOption) (*Profile, error) {
	r, err := newRequest(http.MethodGet, apiroutes.Profile, profileID)
	if err != nil {
		return nil, err
	}
	var p Profile
	if err := c.do(ctx, r, &p, opts); err != nil {
		return nil, err
	}
	return &p, nil
}

// ListProfilesParams select and order the profiles of a workflow.
type ListProfilesParams = ListParams

// ProfilePage is one page of a workflow's profiles.
type ProfilePage = Page[Profile]

// ListProfilesPage returns one page of a workflow's profiles; pass its
// NextCursor in params.Cursor for the next. params may be nil.
//
// GET /v1/workflows/{workflowId}/profiles (inferred: not in the published
// interface; verified only against this project's mock server)
func (c *Client) ListProfilesPage(ctx context.Context, workflowID string, params *ListProfilesParams, opts ...RequestOption) (*ProfilePage, error) {
	r, err := newRequest(http.MethodGet, apiroutes.WorkflowProfiles, workflowID)
	if err != nil {
		return nil, err
	}
	r.query = params.values()
	var page ProfilePage
	if err := c.do(ctx, r, &page, opts); err != nil {
		return nil, err
	}
	return &page, nil
}

// ListProfiles walks every page of a workflow's profiles, from the cursor
// in params if any. The walk stops at the first error, which it yields.
// params may be nil.
//
// GET /v1/workflows/{workflowId}/profiles (inferred: not in the published
// interface; verified only against this project's mock server)
func (c *Client) ListProfiles(ctx context.Context, workflowID string, params *ListProfilesParams, opts ...RequestOption) iter.Seq2[*Profile, error] {
	return paginate(ctx, c.secret, params.cursor(), func(ctx context.Context, cursor string) (*Page[Profile], error) {
		return c.ListProfilesPage(ctx, workflowID, params.withCursor(cursor), opts...)
	})
}
