package mockserver

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/filelimit"
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

// MaxSeedFileSize is the largest seed file LoadSeedFile reads, and the
// largest file a seed's item may name: a larger one, or an endless one
// such as /dev/zero, is refused once that much has been read (a file that
// is not JSON, at its first byte).
const MaxSeedFileSize = 64 << 20

// LoadSeedFile reads a seed from a JSON file, with the Path of file items
// read relative to the file's directory. The file and those it names are
// read within MaxSeedFileSize each.
func LoadSeedFile(path string) (*Seed, error) {
	f, err := filelimit.Open(path, MaxSeedFileSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Decoded as it is read: a file that is not JSON stops the reading at
	// its first byte that cannot be.
	dec := json.NewDecoder(f)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: more follows the seed", path)
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
				b, err := filelimit.Read(p, MaxSeedFileSize)
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
