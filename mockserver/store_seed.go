package mockserver

import (
	"fmt"

	"github.com/profilesvc/profilesvc-go"
)

// loadSeed adds a seed's workflows and profiles, all or nothing: on an
// error the state is as it was. The seed's items are prepared (checked and
// read) before the lock is taken.
func (s *store) loadSeed(seed *Seed) error {
	specs, err := seedItemSpecs(seed)
	if err != nil {
		return err
	}
	_ = s.do(func(st *state) *apiError {
		before := st.clone()
		if err = st.loadSeed(seed, specs); err != nil {
			s.st = before // under the lock, which withLock holds
		}
		return nil
	})
	return err
}

// seedItemSpecs prepares every item of a seed, by profile, folder and
// item index.
func seedItemSpecs(seed *Seed) ([][][]*itemSpec, error) {
	out := make([][][]*itemSpec, len(seed.Profiles))
	for i, sp := range seed.Profiles {
		out[i] = make([][]*itemSpec, len(sp.Folders))
		for j, sf := range sp.Folders {
			for k, si := range sf.Items {
				spec, e := seedItemSpec(si)
				if e == nil {
					e = spec.prepare()
				}
				if e != nil {
					return nil, fmt.Errorf("profiles[%d].folders[%d].items[%d]: %s", i, j, k, e.message)
				}
				out[i][j] = append(out[i][j], spec)
			}
		}
	}
	return out, nil
}

// seedItemSpec is the item spec of a seed's item (or the test kit's).
func seedItemSpec(si SeedItem) (*itemSpec, *apiError) {
	if si.Type == profilesvc.ItemFile && si.Path != "" {
		return nil, validation("field \"path\" is read by LoadSeedFile only: give the file's bytes in \"data\"")
	}
	spec := &itemSpec{
		typ: si.Type, name: si.Name, content: si.Content, declared: si.ContentType,
		metadata: cloneMap(si.Metadata), id: si.ID, status: si.Status,
	}
	if si.Type == profilesvc.ItemFile {
		spec.data = si.Data
	}
	return spec, nil
}

// loadSeed adds a seed to the state, its items prepared as specs.
func (st *state) loadSeed(seed *Seed, specs [][][]*itemSpec) error {
	for _, w := range seed.Workflows {
		if err := w.Validate(); err != nil {
			return fmt.Errorf("workflow %q: %w", w.ID, err)
		}
		st.putWorkflow(w)
	}
	for i, sp := range seed.Profiles {
		where := fmt.Sprintf("profiles[%d]", i)
		wid := sp.WorkflowID
		if wid == "" {
			wid = DefaultWorkflowID
		}
		p, e := st.createProfile(profileSpec{workflowID: wid, name: sp.Name, description: sp.Description,
			metadata: cloneMap(sp.Metadata), id: sp.ID})
		if e != nil {
			return fmt.Errorf("%s: %s", where, e.message)
		}
		for j, sf := range sp.Folders {
			if err := st.loadSeedFolder(p, sf, specs[i][j], fmt.Sprintf("%s.folders[%d]", where, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadSeedFolder fills a seed's folder: the default one, or a new one.
func (st *state) loadSeedFolder(p *profileRec, sf SeedFolder, specs []*itemSpec, where string) error {
	folderID := p.folderIDs[0]
	if !sf.Default && sf.Name != "default" {
		f, e := st.createFolder(p.id, sf.Name, sf.ID)
		if e != nil {
			return fmt.Errorf("%s: %s", where, e.message)
		}
		folderID = f.id
	}
	for k, spec := range specs {
		if _, e := st.addItem(folderID, spec); e != nil {
			return fmt.Errorf("%s.items[%d]: %s", where, k, e.message)
		}
	}
	return nil
}
