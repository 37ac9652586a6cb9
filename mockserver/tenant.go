package mockserver

// Tenant is one namespace of the server: its profiles, folders, items and
// analyses, its injected faults and its record of requests. A server has
// one, unless it is multi-tenant (WithMultiTenant), where every API key has
// its own. Its methods are the test kit: they arrange and inspect state
// without HTTP. It is safe for concurrent use.
type Tenant struct {
	srv   *Server
	store *store
	// faults and record have locks of their own, so that the middleware
	// does not contend with the store.
	faults *faultSet
	record *requestRecord
	// renders are the reports being rendered, one at a time each.
	renders flights
}

// newTenant makes a namespace of the server, with the server's workflows.
func (s *Server) newTenant() *Tenant {
	t := &Tenant{
		srv:    s,
		faults: newFaultSet(s.cfg.faultSeed),
		record: newRequestRecord(s.cfg.recordSize, s.cfg.recordBytes),
	}
	t.store = newStore(s.cfg.allWorkflows(), s.ids, s.clock, tenantRunner{t: t, manual: s.cfg.manual})
	return t
}
