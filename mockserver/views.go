package mockserver

import (
	"net/http"
	"strings"

	"github.com/profilesvc/profilesvc-go"
)

// Views render stored records as the API shows them. They share the
// records' maps and byte slices, which the store never changes in place,
// so that an answer is encoded after the lock is released; the test kit
// copies what it hands to its callers.

// profileView renders a stored profile; withFolders adds the folder
// summaries of the create answer.
func (st *state) profileView(p *profileRec, withFolders bool) *profilesvc.Profile {
	v := &profilesvc.Profile{
		ID:             p.id,
		WorkflowID:     p.workflowID,
		Name:           p.name,
		Description:    p.description,
		Metadata:       p.metadata,
		ItemsCount:     st.itemsCount(p),
		LastAnalysisAt: p.lastAnalysisAt,
		CreatedAt:      p.createdAt,
		UpdatedAt:      p.updatedAt,
	}
	if withFolders {
		v.Folders = make([]profilesvc.Folder, 0, len(p.folderIDs))
		for _, fid := range p.folderIDs {
			f := st.folders[fid]
			v.Folders = append(v.Folders, profilesvc.Folder{
				ID: f.id, Name: f.name, IsDefault: f.isDefault, ItemsCount: len(f.itemIDs), CreatedAt: f.createdAt,
			})
		}
	}
	return v
}

// folderView renders a stored folder without its items.
func folderView(f *folderRec) profilesvc.Folder {
	return profilesvc.Folder{
		ID: f.id, ProfileID: f.profileID, Name: f.name, IsDefault: f.isDefault,
		ItemsCount: len(f.itemIDs), CreatedAt: f.createdAt, UpdatedAt: f.updatedAt,
	}
}

// folderWithItems is the single-folder answer: items is always present.
type folderWithItems struct {
	profilesvc.Folder
	Items []profilesvc.ItemSummary `json:"items"`
}

// folderWithItems renders a stored folder with its item summaries.
func (st *state) folderWithItems(f *folderRec) folderWithItems {
	out := folderWithItems{Folder: folderView(f), Items: make([]profilesvc.ItemSummary, 0, len(f.itemIDs))}
	for _, iid := range f.itemIDs {
		it := st.items[iid]
		ct := it.contentType
		size := int64(len(it.data))
		out.Items = append(out.Items, profilesvc.ItemSummary{
			ID: it.id, Type: it.typ, Name: it.name, ContentType: &ct, SizeBytes: &size, CreatedAt: it.createdAt,
		})
	}
	return out
}

// itemView renders a stored item in full; base is the address its
// storage artifacts are served from.
func itemView(it *itemRec, base string) *profilesvc.Item {
	v := &profilesvc.Item{
		ID:                 it.id,
		FolderID:           it.folderID,
		Type:               it.typ,
		Name:               it.name,
		Content:            profilesvc.RawJSON("null"),
		ContentType:        it.contentType,
		SizeBytes:          int64(len(it.data)),
		URL:                base + strings.Replace(storageTextPath, "{itemId}", it.id, 1),
		StorageOriginalURL: base + strings.Replace(storageOriginalPath, "{itemId}", it.id, 1),
		Metadata:           it.metadata,
		Status:             it.status,
		ProcessedAt:        it.processedAt,
		CreatedAt:          it.createdAt,
	}
	if v.Metadata == nil {
		v.Metadata = map[string]any{}
	}
	if it.content != nil {
		v.Content = profilesvc.RawJSON(it.content)
	}
	d := it.detected
	v.Detected = &d
	return v
}

// completedView renders a completed analysis with every result field
// present, even when empty: the SDK's type leaves empty ones out.
type completedView struct {
	*profilesvc.Analysis
	ExtractionStatus map[string]profilesvc.ExtractionStatus `json:"extractionStatus"`
	RawActionResults map[string]profilesvc.RawActionResult  `json:"rawActionResults"`
	AgentAuditLog    []profilesvc.AuditLogEntry             `json:"agentAuditLog"`
	Findings         []profilesvc.Finding                   `json:"findings"`
	Recommendations  []profilesvc.Recommendation            `json:"recommendations"`
	TargetItems      []profilesvc.TargetItem                `json:"targetItems"`
}

// analysisView is what an analysis encodes as: a completed one with every
// result field.
func analysisView(a *profilesvc.Analysis) any {
	if a.Status != profilesvc.AnalysisCompleted {
		return a
	}
	return completedView{Analysis: a, ExtractionStatus: a.ExtractionStatus, RawActionResults: a.RawActionResults,
		AgentAuditLog: a.AgentAuditLog, Findings: a.Findings, Recommendations: a.Recommendations, TargetItems: a.TargetItems}
}

// baseURL is the address the request reached the server at.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
