package profilesvc

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// Folder holds items within a profile. Every profile has one default
// folder, which cannot be renamed or deleted.
type Folder struct {
	// ID has the prefix "fld_" or "fd_".
	ID        string `json:"id"`
	ProfileID string `json:"profileId,omitempty"`
	Name      string `json:"name"`
	// IsDefault is true for the folder created with the profile.
	IsDefault  bool      `json:"isDefault"`
	ItemsCount int       `json:"itemsCount"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt,omitzero"`
	// Items is set only by GetFolder.
	Items []ItemSummary `json:"items,omitempty"`

	// Raw is the folder's JSON as the service sent it.
	Raw RawJSON `json:"-"`
}

// UnmarshalJSON decodes the folder and keeps its JSON in Raw.
func (f *Folder) UnmarshalJSON(b []byte) error {
	type plain Folder
	if err := unmarshal(b, (*plain)(f)); err != nil {
		return err
	}
	f.Raw = append(RawJSON(nil), b...)
	return nil
}

// ListFoldersParams select and order the folders of a profile.
type ListFoldersParams = ListParams

// FolderPage is one page of a profile's folders. Its folders carry no
// Items.
type FolderPage = Page[Folder]

// ListFoldersPage returns one page of a profile's folders; pass its
// NextCursor in params.Cursor for the next. params may be nil.
//
// GET /v1/profiles/{profileId}/folders
func (c *Client) ListFoldersPage(ctx context.Context, profileID string, params *ListFoldersParams, opts ...RequestOption) (*FolderPage, error) {
	r, err := newRequest(http.MethodGet, apiroutes.ProfileFolders, profileID)
	if err != nil {
		return nil, err
	}
	r.query = params.values()
	var page FolderPage
	if err := c.do(ctx, r, &page, opts); err != nil {
		return nil, err
	}
	return &page, nil
}

// ListFolders walks every page of a profile's folders, from the cursor in
// params if any, following nextCursor:
//
//	for folder, err := range client.ListFolders(ctx, profileID, nil) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(folder.Name)
//	}
//
// The walk stops at the first error, which it yields. params may be nil.
//
// GET /v1/profiles/{profileId}/folders
func (c *Client) ListFolders(ctx context.Context, profileID string, params *ListFoldersParams, opts ...RequestOption) iter.Seq2[*Folder, error] {
	return paginate(ctx, c.secret, params.cursor(), func(ctx context.Context, cursor string) (*Page[Folder], error) {
		return c.ListFoldersPage(ctx, profileID, params.withCursor(cursor), opts...)
	})
}

// DefaultFolder returns a profile's default folder, the one made with the
// profile, found through the profile's folder listing. Use it for a
// profile from any call but CreateProfile, whose answer holds the default
// folder already (Profile.DefaultFolder). A listing without a default
// folder is an error matching ErrFolderNotFound.
//
// GET /v1/profiles/{profileId}/folders
func (c *Client) DefaultFolder(ctx context.Context, profileID string, opts ...RequestOption) (*Folder, error) {
	// Oldest first: the default folder was made with the profile, so it is
	// on the first page unless folders share its creation time.
	params := &ListFoldersParams{Sort: SortByCreatedAt, Order: Ascending, Limit: 100}
	for f, err := range c.ListFolders(ctx, profileID, params, opts...) {
		if err != nil {
			return nil, err
		}
		if f.IsDefault {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%w: profile %s has no default folder", ErrFolderNotFound, profileID)
}

// GetFolder returns a folder with the summaries of its items.
//
// GET /v1/folders/{folderId}
func (c *Client) GetFolder(ctx context.Context, folderID string, opts ...RequestOption) (*Folder, error) {
	r, err := newRequest(http.MethodGet, apiroutes.Folder, folderID)
	if err != nil {
		return nil, err
	}
	var f Folder
	if err := c.do(ctx, r, &f, opts); err != nil {
		return nil, err
	}
	return &f, nil
}

// CreateFolder creates a folder in a profile.
//
// POST /v1/profiles/{profileId}/folders (inferred: not in the published
// interface; verified only against this project's mock server)
func (c *Client) CreateFolder(ctx context.Context, profileID, name string, opts ...RequestOption) (*Folder, error) {
	r, err := newRequest(http.MethodPost, apiroutes.ProfileFolders, profileID)
	if err != nil {
		return nil, err
	}
	r.json = folderName{Name: name}
	var f Folder
	if err := c.do(ctx, r, &f, opts); err != nil {
		return nil, err
	}
	return &f, nil
}

type folderName struct {
	Name string `json:"name"`
}

// RenameFolder renames a folder. The default folder cannot be renamed
// (ErrCannotModifyDefaultFolder).
//
// PATCH /v1/folders/{folderId}
func (c *Client) RenameFolder(ctx context.Context, folderID, name string, opts ...RequestOption) (*Folder, error) {
	r, err := newRequest(http.MethodPatch, apiroutes.Folder, folderID)
	if err != nil {
		return nil, err
	}
	r.json = folderName{Name: name}
	var f Folder
	if err := c.do(ctx, r, &f, opts); err != nil {
		return nil, err
	}
	return &f, nil
}

// DeleteFolder deletes a folder and every item in it. The default folder
// cannot be deleted (ErrCannotDeleteDefaultFolder).
//
// DELETE /v1/folders/{folderId}
func (c *Client) DeleteFolder(ctx context.Context, folderID string, opts ...RequestOption) error {
	r, err := newRequest(http.MethodDelete, apiroutes.Folder, folderID)
	if err != nil {
		return err
	}
	return c.do(ctx, r, nil, opts)
}
