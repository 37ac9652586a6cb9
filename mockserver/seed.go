package mockserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/profilesvc/profilesvc-go"
)

// Seed is state to load into a server: workflows, and profiles with their
// folders and items. The binary's -seed flag reads one from a JSON file of
// the same shape; see LoadSeedFile.
type Seed struct {
	Workflows []Workflow    `json:"workflows,omitempty"`
	Profiles  []SeedProfile `json:"profiles,omitempty"`
}

// SeedProfile is a profile to load.
type SeedProfile struct {
	// ID, if set, is the profile's ID ("pf_..."); default a new one.
	ID string `json:"id,omitempty"`
	// WorkflowID defaults to wf_default.
	WorkflowID  string         `json:"workflowId,omitempty"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// Folders are the profile's folders; one named "default" (or marked
	// Default) fills the default folder, which is always made.
	Folders []SeedFolder `json:"folders,omitempty"`
}

// SeedFolder is a folder to load.
type SeedFolder struct {
	ID      string     `json:"id,omitempty"`
	Name    string     `json:"name"`
	Default bool       `json:"default,omitempty"`
	Items   []SeedItem `json:"items,omitempty"`
}

// SeedItem is an item to load, or to add with Tenant.AddItem.
type SeedItem struct {
	ID string `json:"id,omitempty"`
	// Type is text, json or file.
	Type profilesvc.ItemType `json:"type"`
	Name string              `json:"name"`
	// Content is a text item's text (a JSON string) or a JSON item's value.
	Content json.RawMessage `json:"content,omitempty"`
	// Data is a file item's bytes (base64 in JSON); Path, in a seed file,
	// names a file to read them from, relative to the seed file.
	Data        []byte         `json:"data,omitempty"`
	Path        string         `json:"path,omitempty"`
	ContentType string         `json:"contentType,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// Status defaults to ACTIVE.
	Status profilesvc.ItemStatus `json:"status,omitempty"`
}

// LoadSeedFile reads a seed from a JSON file, with the Path of file items
// read relative to the file's directory.
func LoadSeedFile(path string) (*Seed, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Seed
	if e := unmarshalStrict(raw, &s); e != nil {
		return nil, fmt.Errorf("%s: %s", path, e.message)
	}
	dir := filepath.Dir(path)
	for pi := range s.Profiles {
		for fi := range s.Profiles[pi].Folders {
			items := s.Profiles[pi].Folders[fi].Items
			for ii := range items {
				if items[ii].Path == "" {
					continue
				}
				p := items[ii].Path
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return nil, fmt.Errorf("%s: item %q: %w", path, items[ii].Name, err)
				}
				items[ii].Data, items[ii].Path = b, ""
				if items[ii].Name == "" {
					items[ii].Name = filepath.Base(p)
				}
			}
		}
	}
	return &s, nil
}

// LoadSeed adds a seed's workflows and profiles to the tenant. It checks
// the whole seed first: on an error nothing is loaded.
func (t *Tenant) LoadSeed(s *Seed) error {
	if s == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Work on a copy of the state, so that a failure loads nothing.
	snapshot := t.cloneStateLocked()
	if err := t.loadSeedLocked(s); err != nil {
		t.st = snapshot
		return err
	}
	return nil
}

func (t *Tenant) loadSeedLocked(s *Seed) error {
	for _, w := range s.Workflows {
		if err := w.Validate(); err != nil {
			return fmt.Errorf("workflow %q: %w", w.ID, err)
		}
		wc := w.Clone()
		t.st.workflows[w.ID] = &wc
	}
	for i, sp := range s.Profiles {
		where := fmt.Sprintf("profiles[%d]", i)
		wid := sp.WorkflowID
		if wid == "" {
			wid = DefaultWorkflowID
		}
		name := sp.Name
		desc := sp.Description
		p, e := t.createProfileLocked(wid, createProfileBody{Name: &name, Description: &desc, Metadata: sp.Metadata}, sp.ID)
		if e != nil {
			return fmt.Errorf("%s: %s", where, e.message)
		}
		for j, sf := range sp.Folders {
			fwhere := fmt.Sprintf("%s.folders[%d]", where, j)
			var f *folderRec
			if sf.Default || sf.Name == "default" {
				f = t.st.folders[p.folderIDs[0]]
			} else {
				var e *apiError
				if f, e = t.createFolderLocked(p.id, sf.Name, sf.ID); e != nil {
					return fmt.Errorf("%s: %s", fwhere, e.message)
				}
			}
			for k, si := range sf.Items {
				if _, e := t.addItemLocked(f, si); e != nil {
					return fmt.Errorf("%s.items[%d]: %s", fwhere, k, e.message)
				}
			}
		}
	}
	return nil
}

// cloneStateLocked copies the maps of the state (records are replaced,
// never changed in place, by seeding).
func (t *Tenant) cloneStateLocked() *state {
	c := &state{
		workflows: map[string]*Workflow{}, profiles: map[string]*profileRec{}, folders: map[string]*folderRec{},
		items: map[string]*itemRec{}, analyses: t.st.analyses,
	}
	for k, v := range t.st.workflows {
		c.workflows[k] = v
	}
	for k, v := range t.st.profiles {
		pc := *v
		pc.folderIDs = append([]string(nil), v.folderIDs...)
		c.profiles[k] = &pc
	}
	for k, v := range t.st.folders {
		fc := *v
		fc.itemIDs = append([]string(nil), v.itemIDs...)
		c.folders[k] = &fc
	}
	for k, v := range t.st.items {
		c.items[k] = v
	}
	return c
}

// checkFixedID validates a caller-chosen ID.
func (t *Tenant) checkFixedID(id, prefix string, taken bool) *apiError {
	if !strings.HasPrefix(id, prefix) || len(id) <= len(prefix) || len(id) > 128 || strings.ContainsAny(id, "/?# ") {
		return validation("field \"id\" must start with %q and hold no /, ?, # or space, got %q", prefix, id)
	}
	if taken {
		return validation("field \"id\": %q is already in use", id)
	}
	return nil
}

// addItemLocked adds an item described by spec to a folder.
func (t *Tenant) addItemLocked(f *folderRec, spec SeedItem) (*itemRec, *apiError) {
	var content json.RawMessage
	var data []byte
	switch spec.Type {
	case profilesvc.ItemText, profilesvc.ItemJSON:
		var e *apiError
		if content, data, e = checkItemContent(spec.Type, spec.Content); e != nil {
			return nil, e
		}
	case profilesvc.ItemFile:
		if spec.Path != "" {
			return nil, validation("field \"path\" is read by LoadSeedFile only: give the file's bytes in \"data\"")
		}
		data = spec.Data
	default:
		return nil, validation("field \"type\" must be text, json or file, not %q", spec.Type)
	}
	name := spec.Name
	if name == "" {
		name = "Untitled " + string(spec.Type)
	}
	if e := checkName("name", name); e != nil {
		return nil, e
	}
	it := t.newItem(f, spec.Type, name, content, data, spec.ContentType, spec.Metadata)
	if spec.ID != "" {
		if e := t.checkFixedID(spec.ID, "item_", t.st.items[spec.ID] != nil); e != nil {
			return nil, e
		}
		it.id = spec.ID
	}
	if spec.Status != "" {
		it.status = spec.Status
	}
	t.storeItem(f, it)
	return it, nil
}
