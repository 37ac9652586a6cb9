package mockserver

import (
	"container/list"
	"crypto/subtle"
	"strings"
	"sync"
)

// tenantSet holds the namespaces of a multi-tenant server's other keys, at
// most max of them, in the order they were last used. At its cap, a new
// key evicts the tenant used least recently that has no request under way
// (a long poll held on it, say); when every one has, the new key must
// wait.
type tenantSet struct {
	mu    sync.Mutex
	max   int
	byKey map[string]*list.Element // of *tenantSlot
	lru   list.List                // the most recently used first
}

// tenantSlot is a tenant of the set with its requests under way.
type tenantSlot struct {
	key  string
	t    *Tenant
	busy int
}

func newTenantSet(max int) *tenantSet {
	return &tenantSet{max: max, byKey: map[string]*list.Element{}}
}

// get returns the tenant of key, made with make if it has none; with hold,
// the tenant counts one more request under way until release is called.
// It returns nil when the set is full of tenants with requests under way.
func (ts *tenantSet) get(key string, hold bool, make func() *Tenant) (t *Tenant, release func()) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	el, ok := ts.byKey[key]
	if ok {
		ts.lru.MoveToFront(el)
	} else {
		if ts.lru.Len() >= ts.max && !ts.evict() {
			return nil, func() {}
		}
		el = ts.lru.PushFront(&tenantSlot{key: key, t: make()})
		ts.byKey[key] = el
	}
	slot := el.Value.(*tenantSlot)
	if !hold {
		return slot.t, func() {}
	}
	slot.busy++
	return slot.t, func() {
		ts.mu.Lock()
		slot.busy--
		ts.mu.Unlock()
	}
}

// evict drops the tenant used least recently that has no request under
// way, stopping its analyses' runs; it reports whether there was one.
func (ts *tenantSet) evict() bool {
	for el := ts.lru.Back(); el != nil; el = el.Prev() {
		slot := el.Value.(*tenantSlot)
		if slot.busy > 0 {
			continue
		}
		ts.lru.Remove(el)
		delete(ts.byKey, slot.key)
		slot.t.store.stopRuns()
		return true
	}
	return false
}

// all returns the tenants of the set.
func (ts *tenantSet) all() []*Tenant {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]*Tenant, 0, ts.lru.Len())
	for el := ts.lru.Front(); el != nil; el = el.Next() {
		out = append(out, el.Value.(*tenantSlot).t)
	}
	return out
}

// TenantOf returns the namespace of an API key: the server's own key has
// the server's; on a multi-tenant server any other well-formed UUID has
// one of its own, made on first use, and kept until it is the least
// recently used when the server holds WithMaxTenants of them. It returns
// nil for a key the server refuses.
func (s *Server) TenantOf(apiKey string) *Tenant {
	t, release, _ := s.tenantFor(apiKey, false)
	release()
	return t
}

// tenantFor returns the namespace of an API key, as TenantOf; with hold,
// the tenant is not evicted until release is called. full reports a
// multi-tenant server whose every tenant has a request under way.
func (s *Server) tenantFor(apiKey string, hold bool) (t *Tenant, release func(), full bool) {
	if subtle.ConstantTimeCompare([]byte(apiKey), []byte(s.APIKey)) == 1 {
		return s.Tenant, func() {}, false
	}
	if !s.cfg.multiTenant || !isUUID(apiKey) {
		return nil, func() {}, false
	}
	t, release = s.others.get(strings.ToLower(apiKey), hold, s.newTenant)
	return t, release, t == nil
}
