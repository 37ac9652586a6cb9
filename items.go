package profilesvc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// ItemType is the kind of an item.
type ItemType string

// Item types.
const (
	ItemFile ItemType = "file"
	ItemText ItemType = "text"
	ItemJSON ItemType = "json"
)

// ItemStatus is the processing state of an item. Only an ACTIVE item can
// be analysed. The interface document names only ACTIVE; the mock server
// also uses PROCESSING and FAILED, and the service may send other values.
type ItemStatus string

// Item statuses.
const (
	ItemActive     ItemStatus = "ACTIVE"
	ItemProcessing ItemStatus = "PROCESSING"
	ItemFailed     ItemStatus = "FAILED"
)

// ItemSummary is an item as listed in GetFolder's answer.
type ItemSummary struct {
	ID   string   `json:"id"`
	Type ItemType `json:"type"`
	Name string   `json:"name"`
	// ContentType is the MIME type, or nil.
	ContentType *string `json:"contentType"`
	// SizeBytes is nil where the service does not know it.
	SizeBytes *int64    `json:"sizeBytes"`
	CreatedAt time.Time `json:"createdAt"`
}

// Detected is what the service found out about an item's bytes.
type Detected struct {
	ContentType  string `json:"contentType"`
	Extension    string `json:"extension"`
	FileCategory string `json:"fileCategory"`
}

// Item is a document in a folder: an uploaded file, a text or a JSON value.
type Item struct {
	// ID has the prefix "item_".
	ID       string   `json:"id"`
	FolderID string   `json:"folderId"`
	Type     ItemType `json:"type"`
	Name     string   `json:"name"`
	// Content is the text (a JSON string) of a text item or the value of a
	// JSON item; null for a file. See Text and DecodeContent.
	Content     RawJSON `json:"content"`
	ContentType string  `json:"contentType"`
	SizeBytes   int64   `json:"sizeBytes"`
	// URL is the address of the text extracted from the item.
	URL string `json:"url"`
	// StorageOriginalURL is the address of the original upload.
	StorageOriginalURL string     `json:"storageOriginalUrl"`
	Detected           *Detected  `json:"detected"`
	Metadata           Object     `json:"metadata"`
	Status             ItemStatus `json:"status"`
	// ProcessedAt is nil until the item has been processed.
	ProcessedAt *time.Time `json:"processedAt"`
	CreatedAt   time.Time  `json:"createdAt"`

	// Raw is the item's JSON as the service sent it.
	Raw RawJSON `json:"-"`
}

// UnmarshalJSON decodes the item and keeps its JSON in Raw.
func (it *Item) UnmarshalJSON(b []byte) error {
	type plain Item
	if err := unmarshal(b, (*plain)(it)); err != nil {
		return err
	}
	it.Raw = append(RawJSON(nil), b...)
	return nil
}

// Text returns the content of a text item. The error for another item
// names its type only when it is one of the ItemType constants: an Item
// holds no API key to mask the service's values with, so it repeats none
// of them.
func (it *Item) Text() (string, error) {
	switch it.Type {
	case ItemText:
	case ItemFile, ItemJSON:
		return "", fmt.Errorf("profilesvc: Item.Text: a %s item, not text", it.Type)
	default:
		return "", errors.New("profilesvc: Item.Text: not a text item, but one of a type the SDK does not know")
	}
	var s string
	if err := it.Content.Decode(&s); err != nil {
		return "", err
	}
	return s, nil
}

// DecodeContent unmarshals the content of a JSON or text item into v.
func (it *Item) DecodeContent(v any) error { return it.Content.Decode(v) }

// CreateItemParams are the optional fields of CreateTextItem and
// CreateJSONItem.
type CreateItemParams struct {
	// Name is the item's display name.
	Name     string
	Metadata Object
}

type createItemBody struct {
	Type     ItemType `json:"type"`
	Name     string   `json:"name,omitempty"`
	Content  any      `json:"content"`
	Metadata Object   `json:"metadata,omitempty"`
}

// CreateTextItem stores a text as an item of a folder.
//
// POST /v1/folders/{folderId}/items, as application/json (inferred: not in
// the published interface; verified only against this project's mock
// server)
func (c *Client) CreateTextItem(ctx context.Context, folderID, text string, params CreateItemParams, opts ...RequestOption) (*Item, error) {
	return c.createItem(ctx, folderID, createItemBody{Type: ItemText, Name: params.Name, Content: text, Metadata: params.Metadata}, opts)
}

// CreateJSONItem stores a JSON document as an item of a folder: content is
// any value encoding/json marshals as a JSON object (a struct or a map),
// since an item's content is a string or an object; the mock refuses any
// other value with VALIDATION_ERROR.
//
// POST /v1/folders/{folderId}/items, as application/json (inferred: not in
// the published interface; verified only against this project's mock
// server)
func (c *Client) CreateJSONItem(ctx context.Context, folderID string, content any, params CreateItemParams, opts ...RequestOption) (*Item, error) {
	return c.createItem(ctx, folderID, createItemBody{Type: ItemJSON, Name: params.Name, Content: content, Metadata: params.Metadata}, opts)
}

func (c *Client) createItem(ctx context.Context, folderID string, body createItemBody, opts []RequestOption) (*Item, error) {
	r, err := newRequest(http.MethodPost, apiroutes.FolderItems, folderID)
	if err != nil {
		return nil, err
	}
	r.json = body
	var it Item
	if err := c.do(ctx, r, &it, opts); err != nil {
		return nil, err
	}
	return &it, nil
}

// GetItem returns an item in full.
//
// GET /v1/items/{itemId} (inferred: not in the published interface;
// verified only against this project's mock server)
func (c *Client) GetItem(ctx context.Context, itemID string, opts ...RequestOption) (*Item, error) {
	r, err := newRequest(http.MethodGet, apiroutes.Item, itemID)
	if err != nil {
		return nil, err
	}
	var it Item
	if err := c.do(ctx, r, &it, opts); err != nil {
		return nil, err
	}
	return &it, nil
}

// UpdateItemParams is the body of UpdateItem. A nil field is left as it is.
type UpdateItemParams struct {
	Name *string `json:"name,omitempty"`
	// Metadata is merged into the stored metadata, key by key.
	Metadata Object `json:"metadata,omitempty"`
	// Content replaces the content of a text item (a string) or a JSON item
	// (any JSON value). A file item's content cannot be changed: delete it
	// and upload a new one.
	Content any `json:"content,omitempty"`
}

// UpdateItem changes an item's name, metadata or content and returns the
// item in full.
//
// PATCH /v1/items/{itemId}
func (c *Client) UpdateItem(ctx context.Context, itemID string, params UpdateItemParams, opts ...RequestOption) (*Item, error) {
	r, err := newRequest(http.MethodPatch, apiroutes.Item, itemID)
	if err != nil {
		return nil, err
	}
	r.json = params
	var it Item
	if err := c.do(ctx, r, &it, opts); err != nil {
		return nil, err
	}
	return &it, nil
}

// DeleteItem deletes an item.
//
// DELETE /v1/items/{itemId} (inferred: not in the published interface;
// verified only against this project's mock server)
func (c *Client) DeleteItem(ctx context.Context, itemID string, opts ...RequestOption) error {
	r, err := newRequest(http.MethodDelete, apiroutes.Item, itemID)
	if err != nil {
		return err
	}
	return c.do(ctx, r, nil, opts)
}
