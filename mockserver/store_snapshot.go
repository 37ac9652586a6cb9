package mockserver

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"slices"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// The store's side of snapshots: copying the records out, and putting a
// snapshot's back, under the tenant's lock.

// snapshot copies the records into a snapshot's form.
func (s *store) snapshot() snapshotData {
	d, _ := withLock(s, copyRecords)
	return d
}

// copyRecords copies the state's records into a snapshot's form.
func copyRecords(st *state) (snapshotData, *apiError) {
	d := snapshotData{Version: snapshotVersion, Taken: st.now(), Seq: st.seq}
	for _, id := range st.flowOrder {
		d.Workflows = append(d.Workflows, *st.workflows[id])
	}
	for _, p := range sortedRecords(st.profiles, func(p *profileRec) int64 { return p.seq }) {
		// The lists are copied: the store changes them in place.
		d.Profiles = append(d.Profiles, snapshotProfile{ID: p.id, WorkflowID: p.workflowID, Name: p.name, Description: p.description,
			Metadata: p.metadata, LastAnalysisAt: p.lastAnalysisAt, CreatedAt: p.createdAt, UpdatedAt: p.updatedAt,
			FolderIDs: slices.Clone(p.folderIDs), AnalysisIDs: slices.Clone(p.analysisIDs), Seq: p.seq})
	}
	for _, f := range sortedRecords(st.folders, func(f *folderRec) int64 { return f.seq }) {
		d.Folders = append(d.Folders, snapshotFolder{ID: f.id, ProfileID: f.profileID, Name: f.name, IsDefault: f.isDefault,
			CreatedAt: f.createdAt, UpdatedAt: f.updatedAt, ItemIDs: slices.Clone(f.itemIDs), Seq: f.seq})
	}
	for _, id := range slices.Sorted(maps.Keys(st.items)) {
		it := st.items[id]
		d.Items = append(d.Items, snapshotItem{ID: it.id, FolderID: it.folderID, ProfileID: it.profileID, Type: it.typ, Name: it.name,
			Content: it.content, Data: it.data, Text: it.text, Readable: it.readable, ContentType: it.contentType,
			Detected: it.detected, Metadata: it.metadata, Status: it.status, ProcessedAt: it.processedAt, CreatedAt: it.createdAt})
	}
	for _, rec := range sortedRecords(st.analyses, func(a *analysisRec) int64 { return a.seq }) {
		raw := rec.encodedJSON() // cached, and never changed in place
		in := rec.input
		in.Items = slices.Clone(in.Items)
		for i := range in.Items {
			// The item's bytes, restored from it while it exists; a
			// deleted item's stay with the analysis, whose report shows
			// the document's size and digest.
			if st.items[in.Items[i].ID] != nil {
				in.Items[i].Data = nil
			}
		}
		d.Analyses = append(d.Analyses, snapshotAnalysis{Analysis: raw, Seq: rec.seq, Input: in,
			DurationMs: rec.duration.Milliseconds(), Stuck: rec.stuck, ReportDelay: rec.reportDelay.Milliseconds(), Facts: rec.facts})
	}
	return d, nil
}

// sortedRecords returns a map's records in creation order.
func sortedRecords[R any](m map[string]R, seq func(R) int64) []R {
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b R) int { return cmp.Compare(seq(a), seq(b)) })
	return out
}

// restore replaces the records with a snapshot's, stopping the runs of
// the analyses it had and arming those of the snapshot's running ones;
// reset restores one of the server's workflows alone. A snapshot that
// does not hold together is refused whole, before anything changes.
// moveIDs moves the ID generator on to a sequence of the snapshot's own
// (see idGen.moveOn), so that a seeded server never draws again the IDs
// the snapshot holds; schemaCheck holds its analyses to the document, for
// a snapshot that comes from outside the server (see checkSnapshot).
func (s *store) restore(d snapshotData, moveIDs, schemaCheck bool) error {
	analyses, err := checkSnapshot(&d, schemaCheck)
	if err != nil {
		return err
	}
	st := stateOfSnapshot(d, analyses)
	_ = s.do(func(old *state) *apiError {
		// The old analyses' runs stop, their long polls wake to look
		// again, and so do the waits for a profile's first analysis,
		// which then look in st.
		for _, rec := range old.analyses {
			rec.stopRun()
			rec.notify()
		}
		if old.started != nil {
			close(old.started)
		}
		st.ids, st.clock, st.run = old.ids, old.clock, old.run
		st.epoch = old.epoch + 1
		if moveIDs {
			st.ids.moveOn(d.digest())
		}
		s.st = st // under the lock, which withLock holds
		for _, rec := range st.analyses {
			if !rec.a.Status.IsTerminal() {
				rec.timers = st.run.arm(rec)
			} else if rec.a.Status == profilesvc.AnalysisCompleted && rec.a.PrimaryReportID == nil {
				rec.timers = []func() bool{st.run.armReport(rec)}
			}
		}
		return nil
	})
	return nil
}

// stateOfSnapshot builds the records of a snapshot that checkSnapshot
// found to hold together, with its analyses as it decoded them, outside
// the lock.
func stateOfSnapshot(d snapshotData, analyses []profilesvc.Analysis) *state {
	st := newState(d.Workflows, nil, nil, nil)
	st.seq = d.Seq
	for _, p := range d.Profiles {
		st.profiles[p.ID] = &profileRec{id: p.ID, workflowID: p.WorkflowID, name: p.Name, description: p.Description,
			metadata: p.Metadata, lastAnalysisAt: p.LastAnalysisAt, createdAt: p.CreatedAt, updatedAt: p.UpdatedAt,
			folderIDs: slices.Clone(p.FolderIDs), analysisIDs: slices.Clone(p.AnalysisIDs), seq: p.Seq}
	}
	for _, f := range d.Folders {
		st.folders[f.ID] = &folderRec{id: f.ID, profileID: f.ProfileID, name: f.Name, isDefault: f.IsDefault,
			createdAt: f.CreatedAt, updatedAt: f.UpdatedAt, itemIDs: slices.Clone(f.ItemIDs), seq: f.Seq}
	}
	for _, it := range d.Items {
		st.items[it.ID] = &itemRec{id: it.ID, folderID: it.FolderID, profileID: it.ProfileID, typ: it.Type, name: it.Name,
			content: it.Content, data: it.Data, text: it.Text, readable: it.Readable, contentType: it.ContentType,
			detected: it.Detected, metadata: it.Metadata, status: it.Status, processedAt: it.ProcessedAt, createdAt: it.CreatedAt}
	}
	for i, sa := range d.Analyses {
		rec := &analysisRec{a: analyses[i], seq: sa.Seq, input: sa.Input, duration: time.Duration(sa.DurationMs) * time.Millisecond,
			stuck: sa.Stuck, reportDelay: time.Duration(sa.ReportDelay) * time.Millisecond, facts: sa.Facts,
			changed: make(chan struct{}), reports: map[reportVariant]renderedReport{}}
		rec.a.Raw = nil
		rec.input.Items = slices.Clone(rec.input.Items)
		for i, doc := range rec.input.Items {
			if it := st.items[doc.ID]; it != nil {
				rec.input.Items[i].Data = it.data
			}
		}
		st.analyses[rec.a.ID] = rec
	}
	if st.seq > maxSnapshotSeq/2 {
		st.renumber()
	}
	return st
}

// renumber gives the records creation sequence numbers from 1 on, in the
// same order, for a state restored with numbers so high that counting on
// from them could pass what a state file holds.
func (st *state) renumber() {
	var seqs []*int64
	for _, p := range st.profiles {
		seqs = append(seqs, &p.seq)
	}
	for _, f := range st.folders {
		seqs = append(seqs, &f.seq)
	}
	for _, a := range st.analyses {
		seqs = append(seqs, &a.seq)
	}
	slices.SortFunc(seqs, func(a, b *int64) int { return cmp.Compare(*a, *b) })
	for i, p := range seqs {
		*p = int64(i + 1)
	}
	st.seq = int64(len(seqs))
}

// digest is a digest of the IDs a snapshot holds and of its sequence
// number, which names the sequence a seeded ID generator moves on to
// when the snapshot is restored.
func (d *snapshotData) digest() uint64 {
	h := sha256.New()
	for _, p := range d.Profiles {
		h.Write([]byte(p.ID + "\x00"))
	}
	for _, f := range d.Folders {
		h.Write([]byte(f.ID + "\x00"))
	}
	for _, it := range d.Items {
		h.Write([]byte(it.ID + "\x00"))
	}
	for _, a := range d.Analyses {
		h.Write(a.Analysis)
	}
	_ = binary.Write(h, binary.LittleEndian, d.Seq)
	return binary.LittleEndian.Uint64(h.Sum(nil))
}
