/*
 * Dashboard of the mock's control API (served at /_mock/ui).
 *
 * Plain script, no dependencies. Every string that comes from the server
 * is put into the page with textContent or createElement, never parsed as
 * HTML. The API key lives in sessionStorage only and travels in the
 * x-api-key header, never in an address.
 *
 * data-testid hooks:
 *   Key:        api-key-panel, api-key-form, api-key-input, api-key-submit,
 *               api-key-cancel, api-key-error, api-key-status,
 *               api-key-change, api-key-forget
 *   Proxy:      proxy-note (shown on a proxy, which has only its record)
 *   Messages:   alert (role="alert"; the latest error, with the server's
 *               message), alert-dismiss, status-message (role="status"),
 *               live-status (data-state="live" | "error" | "off")
 *   Sections:   section-profiles, section-requests, section-faults,
 *               section-snapshot
 *   Profiles:   profiles-summary, profiles-empty, profiles,
 *               profiles-expand-all, profiles-collapse-all, workflows,
 *               workflow [data-id], profile [data-id] (a <details>),
 *               profile-name, folder [data-id] (a <details>),
 *               item [data-id], item-status (a <select>),
 *               analysis [data-id] [data-status] (a table row),
 *               analysis-status,
 *               analysis-verification, analysis-risk, analysis-error,
 *               analysis-process, analysis-complete, analysis-fail,
 *               analysis-fail-form, analysis-fail-message,
 *               analysis-fail-confirm, analysis-fail-cancel,
 *               analysis-approve, analysis-reject,
 *               analysis-report-en, analysis-report-ko
 *   Requests:   requests-filter (form), requests-filter-method,
 *               requests-filter-path, requests-filter-status,
 *               requests-filter-apply, requests-filter-reset,
 *               requests-clear, requests-count, requests-dropped,
 *               request [data-request-id] (a table row), request-open,
 *               request-detail, request-detail-status, request-body,
 *               request-body-cut (shown when the body is cut)
 *   Faults:     faults-count, faults-clear, fault [data-id] (a table
 *               row), fault-remove, fault-form, fault-method, fault-path,
 *               fault-status, fault-code, fault-message, fault-retry-after,
 *               fault-delay, fault-truncate, fault-bytes-per-second,
 *               fault-times, fault-probability, fault-drop, fault-submit,
 *               fault-form-clear
 *   Snapshot:   snapshot-download, snapshot-file, snapshot-restore, reset,
 *               reset-confirm-panel, reset-confirm, reset-cancel
 */
'use strict';

(function () {
  const KEY_STORAGE = 'profilesvc-mock-ui.apiKey';
  const POLL_MS = 1000;
  const REQUEST_LIMIT = 200;
  const MAX_PROFILES = 200;
  const MAX_FOLDERS = 100;
  const MAX_ITEMS = 200;
  const MAX_ANALYSES = 50;
  const MAX_FAULTS = 500;
  const MAX_BODY_CHARS = 20000;
  const MAX_VALUE_CHARS = 2000;
  const MAX_NAME_CHARS = 300;
  const MAX_MESSAGE_CHARS = 1000;
  const ITEM_STATUSES = ['ACTIVE', 'PROCESSING', 'FAILED'];

  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- DOM

  // h builds an element. props: class, text, dataset (object), on
  // (object of listeners), boolean/element properties (hidden, disabled,
  // open, checked, type, value), anything else as an attribute. Children
  // may be nodes, strings (added as text) or arrays of them.
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    if (props) {
      for (const [k, v] of Object.entries(props)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') el.className = v;
        else if (k === 'text') el.textContent = String(v);
        else if (k === 'dataset') {
          for (const [dk, dv] of Object.entries(v)) {
            if (dv !== undefined && dv !== null) el.dataset[dk] = String(dv);
          }
        } else if (k === 'on') {
          for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
        } else if (k === 'hidden' || k === 'disabled' || k === 'open' || k === 'checked' || k === 'type' || k === 'value') {
          el[k] = v;
        } else {
          el.setAttribute(k, v === true ? '' : String(v));
        }
      }
    }
    add(el, children);
    return el;
  }

  function add(el, children) {
    for (const c of children) {
      if (c === undefined || c === null || c === false) continue;
      if (Array.isArray(c)) add(el, c);
      else if (c instanceof Node) el.append(c);
      else el.append(String(c));
    }
  }

  // syncChildren makes parent's children exactly nodes, in order, moving
  // as few as it can, so that an unchanged node keeps its focus and state.
  function syncChildren(parent, nodes) {
    let cur = parent.firstChild;
    for (const n of nodes) {
      if (n === cur) {
        cur = cur.nextSibling;
        continue;
      }
      parent.insertBefore(n, cur);
    }
    while (cur) {
      const next = cur.nextSibling;
      parent.removeChild(cur);
      cur = next;
    }
  }

  // clip cuts a string to max characters.
  function clip(s, max) {
    s = s === undefined || s === null ? '' : String(s);
    return s.length > max ? s.slice(0, max) + '…' : s;
  }

  function str(v) {
    return v === undefined || v === null ? '' : String(v);
  }

  function arr(v) {
    return Array.isArray(v) ? v : [];
  }

  function pad(n, w) {
    return String(n).padStart(w || 2, '0');
  }

  // fmtTime shows an ISO time as local "YYYY-MM-DD HH:MM:SS".
  function fmtTime(iso) {
    if (!iso) return '';
    const d = new Date(iso);
    if (isNaN(d.getTime())) return clip(iso, 40);
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }

  function fmtClock(iso) {
    const d = new Date(iso);
    if (isNaN(d.getTime())) return clip(iso, 40);
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3);
  }

  function timeEl(iso, short) {
    if (!iso) return h('span', { class: 'muted', text: '—' });
    const t = h('time', { text: short ? fmtClock(iso) : fmtTime(iso), title: clip(iso, 60) });
    if (!isNaN(new Date(iso).getTime())) t.setAttribute('datetime', String(iso));
    return t;
  }

  function fmtBytes(n) {
    if (typeof n !== 'number' || !isFinite(n)) return '—';
    if (n < 1024) return n + ' B';
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
    if (n < 1024 * 1024 * 1024) return (n / 1024 / 1024).toFixed(1) + ' MiB';
    return (n / 1024 / 1024 / 1024).toFixed(2) + ' GiB';
  }

  // token turns a server value into a safe class-name suffix.
  function token(v) {
    return str(v).toLowerCase().replace(/[^a-z0-9_-]/g, '').slice(0, 40) || 'other';
  }

  function badge(text, kind, testid) {
    return h('span', { class: 'badge badge-' + token(kind), 'data-testid': testid, text: clip(text, 60) });
  }

  function statusClass(status) {
    const s = Number(status);
    if (!s) return 'st-0';
    if (s < 300) return 'st-2xx';
    if (s < 400) return 'st-3xx';
    if (s < 500) return 'st-4xx';
    return 'st-5xx';
  }

  // ---------------------------------------------------------------- state

  const S = {
    key: null,
    gen: 0, // bumped when the key changes: answers of an older key are dropped
    etag: null,
    state: null,
    workflowsSig: null,
    profileCache: new Map(), // profile id -> { sig, node }
    openProfiles: new Map(), // profile id -> open
    openFolders: new Map(), // folder id -> open
    failDrafts: new Map(), // analysis id -> message typed into its open Fail form
    busy: new Set(), // busy groups: "a:<analysisId>", "i:<itemId>"
    reqText: null,
    reqRows: new Map(), // row key -> <tr>
    reqByKey: new Map(), // row key -> entry
    selectedReq: null, // row key
    faultsText: null,
    alertKey: null,
    statusTimer: null,
    restorePicking: false,
  };

  function storageGet() {
    try {
      return window.sessionStorage.getItem(KEY_STORAGE);
    } catch (e) {
      return null;
    }
  }

  function storageSet(v) {
    try {
      if (v === null) window.sessionStorage.removeItem(KEY_STORAGE);
      else window.sessionStorage.setItem(KEY_STORAGE, v);
    } catch (e) {
      // Storage refused: the key stays in memory for this page only.
    }
  }

  // ---------------------------------------------------------------- HTTP

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function toApiError(resp) {
    let text = '';
    try {
      text = await resp.text();
    } catch (e) {
      text = '';
    }
    let code = '';
    let message = '';
    try {
      const body = JSON.parse(text);
      if (body && typeof body === 'object' && body.error && typeof body.error === 'object') {
        code = str(body.error.code);
        message = str(body.error.message);
      }
    } catch (e) {
      message = text.trim();
    }
    if (!message) message = resp.statusText || 'the server answered ' + resp.status;
    return new ApiError(resp.status, code, clip(message, MAX_MESSAGE_CHARS));
  }

  // api sends one request with the key and reads its answer as opts.as
  // ("json", "text", "blob" or nothing). It throws an ApiError for a
  // network failure (status 0) or an answer that is not 2xx or 304.
  async function api(method, path, opts) {
    opts = opts || {};
    const headers = new Headers(opts.headers || {});
    headers.set('x-api-key', opts.key || S.key || '');
    let body = opts.body;
    if (opts.json !== undefined) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(opts.json);
    } else if (body !== undefined && opts.contentType) {
      headers.set('Content-Type', opts.contentType);
    }
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), opts.timeout || 30000);
    try {
      let resp;
      try {
        resp = await fetch(path, {
          method: method,
          headers: headers,
          body: body,
          cache: 'no-store',
          credentials: 'same-origin',
          redirect: 'error',
          signal: ctrl.signal,
        });
      } catch (e) {
        throw new ApiError(0, 'NETWORK_ERROR', ctrl.signal.aborted
          ? 'the server did not answer in time'
          : 'the server could not be reached or closed the connection');
      }
      if (resp.status === 304) return { status: 304, headers: resp.headers, data: null };
      if (!resp.ok) throw await toApiError(resp);
      let data = null;
      try {
        if (opts.as === 'json') data = resp.status === 204 ? null : await resp.json();
        else if (opts.as === 'text') data = await resp.text();
        else if (opts.as === 'blob') data = await resp.blob();
        else await resp.arrayBuffer();
      } catch (e) {
        throw new ApiError(resp.status, 'BAD_ANSWER', ctrl.signal.aborted
          ? 'the answer did not arrive in time'
          : 'the answer could not be read (' + clip(e && e.message, 200) + ')');
      }
      return { status: resp.status, headers: resp.headers, data: data };
    } finally {
      clearTimeout(timer);
    }
  }

  function seg(v) {
    return encodeURIComponent(str(v));
  }

  function errText(err) {
    if (!(err instanceof ApiError)) return clip(err && err.message ? err.message : String(err), MAX_MESSAGE_CHARS);
    if (err.status === 0) return err.message;
    return err.message + ' (' + err.status + (err.code ? ' ' + err.code : '') + ')';
  }

  // ---------------------------------------------------------------- messages

  function showAlert(message, key) {
    const el = $('alert');
    const text = clip(message, MAX_MESSAGE_CHARS + 200);
    S.alertKey = key || 'action';
    if (el.textContent !== text) el.textContent = text;
    $('alert-bar').classList.add('show');
    $('alert-dismiss').hidden = false;
  }

  function clearAlert(key) {
    if (key && S.alertKey !== key) return;
    S.alertKey = null;
    $('alert').textContent = '';
    $('alert-bar').classList.remove('show');
    $('alert-dismiss').hidden = true;
  }

  function showStatus(message) {
    const el = $('status-message');
    el.textContent = clip(message, MAX_MESSAGE_CHARS);
    clearTimeout(S.statusTimer);
    S.statusTimer = setTimeout(() => {
      el.textContent = '';
    }, 8000);
  }

  // fail reports an error of an action the user took.
  function fail(what, err) {
    if (err instanceof ApiError && err.status === 401) {
      unauthorized(err);
      return;
    }
    showAlert(what + ' failed: ' + errText(err), 'action');
  }

  // run calls an async handler and reports what it throws: no promise
  // is ever left rejected.
  function run(what, fn) {
    Promise.resolve()
      .then(fn)
      .catch((err) => fail(what, err));
  }

  function setLive(state, text) {
    const el = $('live-status');
    el.dataset.state = state;
    if (el.textContent !== text) el.textContent = text;
  }

  // ---------------------------------------------------------------- key

  function showKeyPanel(canCancel) {
    $('key-panel').hidden = false;
    $('api-key-cancel').hidden = !canCancel;
    const input = $('api-key-input');
    input.value = '';
    input.focus();
  }

  function hideKeyPanel() {
    $('key-panel').hidden = true;
    // The key lives in the session storage alone, not in a hidden field.
    $('api-key-input').value = '';
    $('key-error').textContent = '';
    $('api-key-input').removeAttribute('aria-invalid');
  }

  function keyError(message) {
    $('key-error').textContent = message;
    $('api-key-input').setAttribute('aria-invalid', 'true');
  }

  async function useKey(candidate, fromStorage) {
    let r;
    const submit = $('api-key-submit');
    submit.disabled = true;
    try {
      r = await api('GET', '/_mock/state', { key: candidate, as: 'json' });
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && err.code === 'PROXY_MODE') {
        // A proxy to the service (-proxy URL) takes the key and has no
        // simulated state: only its request record is there to show.
        storageSet(candidate);
        startProxy(candidate);
        return;
      }
      if (err instanceof ApiError && err.status === 401) {
        const msg = 'The API key was refused (401 ' + (err.code || 'UNAUTHORIZED') + ': ' + err.message + ').';
        keyError(msg);
        showAlert(msg, 'key');
        if (fromStorage) storageSet(null);
        $('key-panel').hidden = false;
        $('api-key-input').focus();
      } else {
        const msg = 'Could not check the API key: ' + errText(err);
        keyError(msg);
        showAlert(msg, 'key');
        $('key-panel').hidden = false;
      }
      return;
    } finally {
      submit.disabled = false;
    }
    storageSet(candidate);
    start(candidate, r);
    if (!fromStorage) $('main').focus({ preventScroll: true });
  }

  // The sections of a simulating mock's state, which a proxy has not.
  const STATE_SECTIONS = ['profiles', 'faults', 'snapshot'];

  // connect shows the dashboard for key, with the sections of the state
  // when the mock simulates the service, without them on a proxy.
  function connect(key, proxy) {
    stopAll();
    S.gen++;
    S.key = key;
    clearAlert('key');
    clearAlert('auth');
    hideKeyPanel();
    $('main').hidden = false;
    $('sections-nav').hidden = false;
    $('key-status').hidden = false;
    $('key-status-text').textContent = 'Key ending …' + key.slice(-4);
    clearDashboard();
    for (const id of STATE_SECTIONS) {
      $(id).hidden = proxy;
      const link = $('sections-nav').querySelector('a[href="#' + id + '"]');
      if (link) link.hidden = proxy;
    }
    $('proxy-note').hidden = !proxy;
  }

  function startProxy(key) {
    connect(key, true);
    setLive('live', 'Live (proxy)');
    pollers.requests.start(S.gen, false);
  }

  function start(key, first) {
    connect(key, false);
    S.etag = first.headers.get('ETag') || (first.data && first.data.version ? '"' + first.data.version + '"' : null);
    renderState(first.data);
    setLive('live', 'Live');
    pollers.state.start(S.gen, true);
    pollers.requests.start(S.gen, false);
    pollers.faults.start(S.gen, false);
  }

  function clearDashboard() {
    S.state = null;
    S.etag = null;
    S.workflowsSig = null;
    S.profileCache.clear();
    S.failDrafts.clear();
    S.busy.clear();
    S.reqText = null;
    S.reqRows.clear();
    S.reqByKey.clear();
    S.selectedReq = null;
    S.faultsText = null;
    $('profile-list').replaceChildren();
    $('workflow-list').replaceChildren();
    $('request-rows').replaceChildren();
    $('fault-rows').replaceChildren();
    $('profiles-summary').textContent = '';
    $('requests-count').textContent = '';
    $('requests-dropped').hidden = true;
    $('faults-count').textContent = '';
    renderDetail(null);
  }

  function stopAll() {
    S.gen++;
    for (const p of Object.values(pollers)) p.stop();
  }

  function forgetKey() {
    stopAll();
    storageSet(null);
    S.key = null;
    clearDashboard();
    $('main').hidden = true;
    $('sections-nav').hidden = true;
    $('key-status').hidden = true;
    setLive('off', 'Not connected');
    showKeyPanel(false);
  }

  function unauthorized(err) {
    const msg = 'The API key was refused (401 ' + (err.code || 'UNAUTHORIZED') + ': ' + err.message + '). Enter a valid key.';
    forgetKey();
    keyError(msg);
    showAlert(msg, 'auth');
  }

  // ---------------------------------------------------------------- polling

  // Poller runs fn every POLL_MS, one call at a time; kick runs it now.
  class Poller {
    constructor(name, fn) {
      this.name = name;
      this.fn = fn;
      this.gen = -1;
      this.timer = null;
      this.running = false;
      this.again = false;
    }

    start(gen, delayFirst) {
      this.stop();
      this.gen = gen;
      if (delayFirst) this.schedule();
      else this.tick();
    }

    stop() {
      this.gen = -1;
      this.again = false;
      clearTimeout(this.timer);
      this.timer = null;
    }

    schedule() {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.tick(), POLL_MS);
    }

    kick() {
      if (this.gen !== S.gen) return;
      if (this.running) {
        this.again = true;
        return;
      }
      clearTimeout(this.timer);
      this.tick();
    }

    async tick() {
      const gen = this.gen;
      if (gen !== S.gen) return;
      this.running = true;
      try {
        await this.fn(gen);
      } catch (err) {
        if (gen === S.gen) pollFailed(this.name, err);
      } finally {
        this.running = false;
      }
      if (gen !== S.gen || this.gen !== gen) return;
      if (this.again) {
        this.again = false;
        this.tick();
        return;
      }
      this.schedule();
    }
  }

  const pollFailures = new Map();

  function pollFailed(name, err) {
    if (err instanceof ApiError && err.status === 401) {
      unauthorized(err);
      return;
    }
    pollFailures.set(name, err);
    setLive('error', 'Connection problem');
    showAlert('Updating ' + name + ' failed: ' + errText(err), 'poll-' + name);
  }

  function pollOk(name) {
    if (pollFailures.has(name)) {
      pollFailures.delete(name);
      clearAlert('poll-' + name);
    }
    if (pollFailures.size === 0) {
      const d = new Date();
      setLive('live', 'Live · ' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()));
    }
  }

  async function pollState(gen) {
    const headers = {};
    if (S.etag) headers['If-None-Match'] = S.etag;
    const r = await api('GET', '/_mock/state', { headers: headers, as: 'json' });
    if (gen !== S.gen) return;
    pollOk('profiles');
    if (r.status === 304) return;
    S.etag = r.headers.get('ETag') || (r.data && r.data.version ? '"' + r.data.version + '"' : null);
    renderState(r.data);
  }

  async function pollRequests(gen) {
    // The filter as last applied, not as being typed.
    const q = S.appliedFilter || 'limit=' + REQUEST_LIMIT;
    if (q === S.refusedFilter) return;
    let r;
    try {
      r = await api('GET', '/_mock/requests?' + q, { as: 'text' });
    } catch (err) {
      // A filter the server refuses is asked for once, and again only
      // once it has changed: the message stays, the polling stops.
      if (err instanceof ApiError && err.status === 400) S.refusedFilter = q;
      throw err;
    }
    if (gen !== S.gen) return;
    pollOk('requests');
    if (r.data === S.reqText) return;
    const data = JSON.parse(r.data);
    S.reqText = r.data;
    renderRequests(data);
  }

  async function pollFaults(gen) {
    const r = await api('GET', '/_mock/faults', { as: 'text' });
    if (gen !== S.gen) return;
    pollOk('faults');
    if (r.data === S.faultsText) return;
    const data = JSON.parse(r.data);
    S.faultsText = r.data;
    renderFaults(data);
  }

  const pollers = {
    state: new Poller('profiles', pollState),
    requests: new Poller('requests', pollRequests),
    faults: new Poller('faults', pollFaults),
  };

  // ---------------------------------------------------------------- profiles

  function renderState(data) {
    if (!data || typeof data !== 'object') return;
    S.state = data;
    renderWorkflows(arr(data.workflows));
    const profiles = arr(data.profiles).slice(0, MAX_PROFILES);
    const total = typeof data.totalProfiles === 'number' ? data.totalProfiles : profiles.length;
    let summary = total === 1 ? '1 profile' : total + ' profiles';
    if (data.truncated || profiles.length < total) summary = 'The newest ' + profiles.length + ' of ' + total + ' profiles';
    $('profiles-summary').textContent = summary + (profiles.length ? ', newest first' : '');
    $('profiles-summary').classList.toggle('warn-text', Boolean(data.truncated || profiles.length < total));
    $('profiles-empty').hidden = profiles.length > 0;
    renderProfiles(profiles);
  }

  function renderWorkflows(workflows) {
    const sig = JSON.stringify(workflows);
    if (sig === S.workflowsSig) return;
    S.workflowsSig = sig;
    const list = $('workflow-list');
    const nodes = workflows.slice(0, 100).map((w) => {
      const policy = arr(w && w.policy);
      return h('li', { class: 'workflow', 'data-testid': 'workflow', dataset: { id: str(w && w.id) } },
        h('code', { text: clip(w && w.id, MAX_NAME_CHARS) }),
        w && w.name ? h('span', { class: 'workflow-name', text: clip(w.name, MAX_NAME_CHARS) }) : null,
        policy.length ? h('span', { class: 'muted', text: policy.length === 1 ? '1 policy action' : policy.length + ' policy actions' }) : null);
    });
    if (!nodes.length) nodes.push(h('li', { class: 'muted', text: 'None' }));
    list.replaceChildren(...nodes);
  }

  // focusInfo records which control inside root has the focus, so that it
  // can be focused again once root's content is rebuilt.
  function focusInfo(root) {
    const a = document.activeElement;
    if (!a || a === document.body || !root.contains(a)) return null;
    const keyed = a.closest('[data-key]');
    if (!keyed) return null;
    const group = keyed.closest('[data-group]');
    const info = { key: keyed.dataset.key, group: group ? group.dataset.group : null };
    if (a instanceof HTMLInputElement && typeof a.selectionStart === 'number') {
      info.sel = [a.selectionStart, a.selectionEnd];
    }
    return info;
  }

  function findByData(root, attr, value) {
    return root.querySelector('[data-' + attr + '="' + CSS.escape(value) + '"]');
  }

  function restoreFocus(root, info) {
    if (!info) return;
    const a = document.activeElement;
    if (a && a !== document.body && document.contains(a) && root.contains(a)) return;
    let el = findByData(root, 'key', info.key);
    if (el && el.disabled) el = null;
    if (!el && info.group) {
      const g = findByData(root, 'group', info.group);
      if (g) el = g.querySelector('button:not([disabled]), select:not([disabled]), input:not([disabled]), summary') || g;
    }
    if (!el) return;
    el.focus({ preventScroll: true });
    if (info.sel && el instanceof HTMLInputElement) {
      try {
        el.setSelectionRange(info.sel[0], info.sel[1]);
      } catch (e) {
        // Not a text input.
      }
    }
  }

  function renderProfiles(profiles) {
    const list = $('profile-list');
    const focus = focusInfo(list);
    const seen = new Set();
    const nodes = [];
    for (const p of profiles) {
      if (!p || typeof p !== 'object') continue;
      const id = str(p.id);
      if (seen.has(id)) continue;
      seen.add(id);
      const sig = JSON.stringify(p);
      const cached = S.profileCache.get(id);
      if (cached && cached.sig === sig) {
        nodes.push(cached.node);
        continue;
      }
      const node = buildProfile(p);
      S.profileCache.set(id, { sig: sig, node: node });
      nodes.push(node);
    }
    for (const id of Array.from(S.profileCache.keys())) {
      if (!seen.has(id)) {
        S.profileCache.delete(id);
        S.openProfiles.delete(id);
      }
    }
    syncChildren(list, nodes);
    restoreFocus(list, focus);
  }

  // rebuildProfileOf redraws the profile holding an analysis, for a change
  // of the page's own (a Fail form opened or closed).
  function rebuildProfileOf(analysisId) {
    const row = findByData($('profile-list'), 'group', 'a:' + analysisId);
    const profile = row && row.closest('[data-testid="profile"]');
    if (!profile || !S.state) return;
    const pid = profile.dataset.id;
    const cached = S.profileCache.get(pid);
    if (cached) cached.sig = null;
    renderProfiles(arr(S.state.profiles).slice(0, MAX_PROFILES));
  }

  function buildProfile(p) {
    const id = str(p.id);
    const folders = arr(p.folders);
    const analyses = arr(p.analyses);
    const open = S.openProfiles.has(id) ? S.openProfiles.get(id) : true;
    const latest = analyses[0];

    // The state holds the first folders of a profile; foldersCount counts
    // them all.
    const foldersCount = typeof p.foldersCount === 'number' ? Math.max(p.foldersCount, folders.length) : folders.length;
    const shownFolders = Math.min(folders.length, MAX_FOLDERS);

    const summary = h('summary', { class: 'profile-summary', dataset: { key: 'p:' + id } },
      h('span', { class: 'profile-name', 'data-testid': 'profile-name', text: clip(p.name, MAX_NAME_CHARS) || '(no name)' }),
      h('code', { class: 'profile-id', text: clip(id, MAX_NAME_CHARS) }),
      h('span', { class: 'profile-created' }, 'created ', timeEl(p.createdAt)),
      h('span', { class: 'profile-counts muted', text:
        (typeof p.itemsCount === 'number' ? p.itemsCount + (p.itemsCount === 1 ? ' item' : ' items') + ' · ' : '') +
        foldersCount + (foldersCount === 1 ? ' folder' : ' folders') + ' · ' +
        analyses.length + (analyses.length === 1 ? ' analysis' : ' analyses') }),
      latest ? badge(str(latest.status), 'an-' + latest.status) : null);

    const meta = h('dl', { class: 'meta' },
      metaRow('Workflow', h('code', { text: clip(p.workflowId, MAX_NAME_CHARS) })),
      metaRow('Created', timeEl(p.createdAt)),
      metaRow('Updated', timeEl(p.updatedAt)),
      metaRow('Last analysis', timeEl(p.lastAnalysisAt)),
      p.description !== undefined && p.description !== null && p.description !== ''
        ? metaRow('Description', h('div', { class: 'prewrap long-value', text: clip(p.description, MAX_VALUE_CHARS) }), true) : null,
      p.metadata !== undefined && p.metadata !== null
        ? metaRow('Metadata', h('code', { class: 'json-inline long-value', text: clip(JSON.stringify(p.metadata), MAX_VALUE_CHARS) }), true) : null,
      p.metadataTruncated === true
        ? metaRow('Metadata', h('span', { class: 'note', text: 'Larger than the dashboard shows: read the profile through the API.' }), true) : null);

    const folderNodes = folders.slice(0, MAX_FOLDERS).map(buildFolder);
    const foldersPart = h('div', { class: 'profile-part' },
      h('h3', { class: 'part-heading', text: 'Folders' }),
      folderNodes.length ? folderNodes : h('p', { class: 'empty', text: 'No folders.' }),
      foldersCount > shownFolders ? h('p', { class: 'note', text: (foldersCount - shownFolders) + ' more folders not shown.' }) : null);

    const analysesPart = h('div', { class: 'profile-part' },
      h('h3', { class: 'part-heading', text: 'Analyses' }),
      analyses.length ? buildAnalysesTable(analyses.slice(0, MAX_ANALYSES)) : h('p', { class: 'empty', text: 'No analyses.' }),
      analyses.length > MAX_ANALYSES ? h('p', { class: 'note', text: (analyses.length - MAX_ANALYSES) + ' more analyses not shown.' }) : null);

    const details = h('details', { class: 'profile', 'data-testid': 'profile', dataset: { id: id }, open: open },
      summary,
      h('div', { class: 'profile-body' }, meta, foldersPart, analysesPart));
    details.addEventListener('toggle', () => S.openProfiles.set(id, details.open));
    return details;
  }

  function metaRow(label, value, wide) {
    return h('div', { class: wide ? 'meta-row meta-wide' : 'meta-row' }, h('dt', { text: label }), h('dd', null, value));
  }

  function buildFolder(f) {
    const id = str(f && f.id);
    const items = arr(f && f.items);
    const open = S.openFolders.has(id) ? S.openFolders.get(id) : true;
    const count = typeof f.itemsCount === 'number' ? f.itemsCount : items.length;
    const summary = h('summary', { class: 'folder-summary', dataset: { key: 'f:' + id } },
      h('span', { class: 'folder-name', text: clip(f.name, MAX_NAME_CHARS) || '(no name)' }),
      f.isDefault ? badge('default', 'neutral') : null,
      h('code', { class: 'muted', text: clip(id, MAX_NAME_CHARS) }),
      h('span', { class: 'muted', text: count + (count === 1 ? ' item' : ' items') }));
    let body;
    if (!items.length) {
      body = h('p', { class: 'empty', text: 'No items.' });
    } else {
      body = h('div', { class: 'table-scroll' },
        h('table', { class: 'data-table items-table' },
          h('caption', { class: 'vh', text: 'Items of folder ' + clip(f.name, MAX_NAME_CHARS) }),
          h('thead', null, h('tr', null,
            ['Name', 'Type', 'Size', 'Content type', 'Status', 'ID', 'Created'].map((t) => h('th', { scope: 'col', text: t })))),
          h('tbody', null, items.slice(0, MAX_ITEMS).map(buildItemRow))));
    }
    const details = h('details', { class: 'folder', 'data-testid': 'folder', dataset: { id: id }, open: open },
      summary,
      body,
      items.length > MAX_ITEMS ? h('p', { class: 'note', text: (items.length - MAX_ITEMS) + ' more items not shown.' }) : null);
    details.addEventListener('toggle', () => S.openFolders.set(id, details.open));
    return details;
  }

  function buildItemRow(it) {
    const id = str(it && it.id);
    const status = str(it.status) || 'ACTIVE';
    const busy = S.busy.has('i:' + id);
    const select = h('select', {
      class: 'status-select' + (status === 'ACTIVE' ? '' : ' not-active'),
      'data-testid': 'item-status',
      dataset: { key: 'i:' + id + ':status', itemId: id, current: status, busyGroup: 'i:' + id },
      'aria-disabled': busy ? 'true' : null,
    });
    const options = ITEM_STATUSES.slice();
    if (options.indexOf(status) < 0) options.push(status);
    for (const o of options) select.append(h('option', { value: o, text: clip(o, 80) }));
    select.value = status;
    const name = clip(it.name, MAX_NAME_CHARS) || '(no name)';
    return h('tr', { 'data-testid': 'item', dataset: { id: id, group: 'i:' + id } },
      h('td', { class: 'cell-name', text: name }),
      h('td', { text: clip(it.type, 40) }),
      h('td', { class: 'num', text: fmtBytes(it.sizeBytes) }),
      h('td', { class: 'muted', text: it.contentType ? clip(it.contentType, 120) : '—' }),
      h('td', null, h('label', null, h('span', { class: 'vh', text: 'Status of item ' + name }), select)),
      h('td', null, h('code', { text: clip(id, MAX_NAME_CHARS) })),
      h('td', null, timeEl(it.createdAt)));
  }

  function buildAnalysesTable(analyses) {
    return h('div', { class: 'table-scroll' },
      h('table', { class: 'data-table analyses-table' },
        h('caption', { class: 'vh', text: 'Analyses, newest first' }),
        h('thead', null, h('tr', null,
          ['Analysis', 'Status', 'Verification', 'Risk', 'Requested', 'Completed', 'Actions'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', null, analyses.map(buildAnalysisRow))));
  }

  function actionButton(label, action, id, extra) {
    const group = 'a:' + id;
    return h('button', Object.assign({
      type: 'button',
      class: 'btn btn-small',
      'data-testid': 'analysis-' + action,
      dataset: { action: action, id: id, key: group + ':' + action, busyGroup: group },
      text: label,
    }, busyProps(group), extra || {}));
  }

  function buildAnalysisRow(a) {
    const id = str(a && a.id);
    const status = str(a.status);
    const verification = str(a.verificationStatus);
    const riskLevel = a.riskLevel;
    const riskScore = a.riskScore;
    const actions = h('div', { class: 'actions' });
    let failForm = null;
    if (status === 'pending' || status === 'processing') {
      actions.append(
        actionButton('Start processing', 'process', id),
        actionButton('Complete', 'complete', id),
        actionButton('Fail', 'fail', id, { 'aria-expanded': S.failDrafts.has(id) ? 'true' : 'false' }));
      if (S.failDrafts.has(id)) failForm = buildFailForm(id);
    } else if (status === 'completed') {
      actions.append(
        actionButton('Approve', 'approve', id, { class: 'btn btn-small' + (verification === 'approved' ? ' is-current' : '') }),
        actionButton('Reject', 'reject', id, { class: 'btn btn-small' + (verification === 'rejected' ? ' is-current' : '') }),
        actionButton('Report (English)', 'report-en', id, { dataset: { action: 'report', locale: 'en', id: id, key: 'a:' + id + ':report-en', busyGroup: 'a:' + id } }),
        actionButton('Report (Korean)', 'report-ko', id, { dataset: { action: 'report', locale: 'ko', id: id, key: 'a:' + id + ':report-ko', busyGroup: 'a:' + id } }));
    } else {
      actions.append(h('span', { class: 'muted', text: '—' }));
    }

    let risk;
    if ((riskLevel === null || riskLevel === undefined) && (riskScore === null || riskScore === undefined)) {
      risk = h('span', { class: 'muted', 'data-testid': 'analysis-risk', text: '—' });
    } else {
      risk = h('span', { 'data-testid': 'analysis-risk' },
        riskLevel ? badge(str(riskLevel), 'risk-' + riskLevel) : null,
        typeof riskScore === 'number' ? h('span', { class: 'score', text: ' ' + riskScore }) : null);
    }

    return h('tr', { 'data-testid': 'analysis', dataset: { id: id, group: 'a:' + id, status: status } },
      h('td', null,
        h('code', { text: clip(id, MAX_NAME_CHARS) }),
        h('div', { class: 'muted small', text: a.folderId ? 'folder ' + clip(a.folderId, MAX_NAME_CHARS) : 'whole profile' })),
      h('td', null,
        badge(status || '—', 'an-' + status, 'analysis-status'),
        a.error ? h('div', { class: 'analysis-error', 'data-testid': 'analysis-error', text: clip(a.error, MAX_VALUE_CHARS) }) : null),
      h('td', null, badge(verification || '—', 'vf-' + verification, 'analysis-verification')),
      h('td', null, risk),
      h('td', null, timeEl(a.requestedAt)),
      h('td', null, timeEl(a.completedAt)),
      h('td', { class: 'cell-actions' }, actions, failForm));
  }

  function buildFailForm(id) {
    const inputId = 'fail-msg-' + token(id) + '-' + Math.random().toString(36).slice(2, 8);
    const input = h('input', {
      id: inputId,
      type: 'text',
      value: S.failDrafts.get(id) || '',
      placeholder: 'the documents could not be read',
      'data-testid': 'analysis-fail-message',
      dataset: { key: 'a:' + id + ':failmsg', failInput: id },
    });
    return h('form', { class: 'inline-form', 'data-testid': 'analysis-fail-form', dataset: { failForm: id }, novalidate: true },
      h('label', { for: inputId, text: 'Failure message' }),
      input,
      h('button', Object.assign({ type: 'submit', class: 'btn btn-small btn-danger', 'data-testid': 'analysis-fail-confirm', dataset: { key: 'a:' + id + ':failconfirm', busyGroup: 'a:' + id }, text: 'Fail analysis' }, busyProps('a:' + id))),
      h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'analysis-fail-cancel', dataset: { action: 'fail-cancel', id: id, key: 'a:' + id + ':failcancel' }, text: 'Cancel' }));
  }

  // setBusy marks the controls of an item or an analysis as busy while a
  // call for it is under way: aria-disabled rather than disabled, so that
  // the control keeps the keyboard focus.
  function setBusy(group, on) {
    if (on) S.busy.add(group);
    else S.busy.delete(group);
    for (const el of document.querySelectorAll('[data-busy-group="' + CSS.escape(group) + '"]')) markBusy(el, on);
  }

  function markBusy(el, on) {
    if (on) el.setAttribute('aria-disabled', 'true');
    else el.removeAttribute('aria-disabled');
    el.classList.toggle('is-busy', on);
  }

  function busyProps(group) {
    return S.busy.has(group) ? { 'aria-disabled': 'true' } : {};
  }

  // analysisAction calls a control route of an analysis; it returns
  // whether the call succeeded.
  async function analysisAction(id, path, body, label) {
    const group = 'a:' + id;
    if (S.busy.has(group)) return false;
    setBusy(group, true);
    try {
      await api('POST', '/_mock/analyses/' + seg(id) + '/' + path, { json: body, as: 'json' });
      showStatus(label + ': done for ' + clip(id, 80) + '.');
      if (path === 'fail') S.failDrafts.delete(id);
      return true;
    } catch (err) {
      fail(label + ' (' + clip(id, 80) + ')', err);
      return false;
    } finally {
      setBusy(group, false);
      pollers.state.kick();
    }
  }

  async function openReport(id, locale) {
    const group = 'a:' + id;
    if (S.busy.has(group)) return;
    setBusy(group, true);
    try {
      const r = await api('GET', '/v1/analyses/' + seg(id) + '/report?locale=' + seg(locale), { as: 'blob', timeout: 120000 });
      const blob = r.data.type === 'application/pdf' ? r.data : new Blob([r.data], { type: 'application/pdf' });
      const url = URL.createObjectURL(blob);
      setTimeout(() => URL.revokeObjectURL(url), 10 * 60 * 1000);
      const w = window.open(url, '_blank');
      if (w) {
        try {
          w.opener = null;
        } catch (e) {
          // Nothing to cut.
        }
        showStatus('The ' + (locale === 'ko' ? 'Korean' : 'English') + ' report of ' + clip(id, 80) + ' opened in a new tab.');
      } else {
        const link = h('a', { href: url, target: '_blank', rel: 'noopener', text: 'Open the report' });
        const el = $('status-message');
        clearTimeout(S.statusTimer);
        el.replaceChildren('The browser blocked the new tab. ', link);
      }
    } catch (err) {
      fail('Report (' + locale + ') of ' + clip(id, 80), err);
    } finally {
      setBusy(group, false);
    }
  }

  async function setItemStatus(select) {
    const id = select.dataset.itemId;
    const group = 'i:' + id;
    const status = select.value;
    const previous = select.dataset.current;
    if (S.busy.has(group)) {
      select.value = previous;
      return;
    }
    if (status === previous) return;
    setBusy(group, true);
    try {
      await api('POST', '/_mock/items/' + seg(id) + '/status', { json: { status: status }, as: 'json' });
      showStatus('Item ' + clip(id, 80) + ' is now ' + clip(status, 80) + '.');
    } catch (err) {
      select.value = previous;
      fail('Setting the status of item ' + clip(id, 80), err);
    } finally {
      setBusy(group, false);
      pollers.state.kick();
    }
  }

  // ---------------------------------------------------------------- requests

  // requestQuery builds the query of GET /_mock/requests from the filter,
  // or returns null while the status filter is not a whole number.
  function requestQuery() {
    const q = new URLSearchParams();
    q.set('limit', String(REQUEST_LIMIT));
    const method = $('filter-method').value.trim();
    const path = $('filter-path').value.trim();
    const status = $('filter-status').value.trim();
    if (method) q.set('method', method);
    if (path) q.set('path', path);
    const statusInput = $('filter-status');
    if (status) {
      if (!/^\d{1,3}$/.test(status)) {
        statusInput.setAttribute('aria-invalid', 'true');
        $('filter-status-error').textContent = 'Status must be a whole number, such as 404.';
        return null;
      }
      q.set('status', status);
    }
    statusInput.removeAttribute('aria-invalid');
    $('filter-status-error').textContent = '';
    return q.toString();
  }

  // applyFilter takes the filter from its fields (kept as it was when a
  // field is not valid, which says so), and lists the record anew.
  function applyFilter() {
    const q = requestQuery();
    if (q !== null && q !== S.appliedFilter) {
      S.appliedFilter = q;
      S.refusedFilter = null;
    }
    filterChanged();
  }

  // filterChanged lists the record anew, with the filter as applied.
  function filterChanged() {
    S.reqText = null;
    pollers.requests.kick();
  }

  function reqKey(e, i) {
    return e && e.requestId ? 'id:' + e.requestId : 'n:' + i + ':' + str(e && e.time);
  }

  function pathWithQuery(e) {
    let s = str(e.path);
    const q = e.query;
    if (q && typeof q === 'object') {
      const parts = [];
      for (const [k, vs] of Object.entries(q)) {
        for (const v of arr(vs)) parts.push(k + '=' + str(v));
      }
      if (parts.length) s += '?' + parts.join('&');
    }
    return s;
  }

  function renderRequests(data) {
    const items = arr(data && data.items).slice(-REQUEST_LIMIT).reverse();
    const count = typeof data.count === 'number' ? data.count : items.length;
    $('requests-count').textContent = count === 1 ? '1 request shown, newest first' : count + ' requests shown, newest first';
    const dropped = Number(data.dropped) || 0;
    const droppedEl = $('requests-dropped');
    droppedEl.hidden = dropped <= 0;
    droppedEl.textContent = dropped > 0 ? '· ' + dropped + (dropped === 1 ? ' older entry' : ' older entries') + ' dropped from the record' : '';
    $('requests-empty').hidden = items.length > 0;

    const tbody = $('request-rows');
    const focus = focusInfo(tbody);
    const seen = new Set();
    const nodes = [];
    items.forEach((e, i) => {
      if (!e || typeof e !== 'object') return;
      let k = reqKey(e, i);
      if (seen.has(k)) k = k + '#' + i;
      seen.add(k);
      S.reqByKey.set(k, e);
      const sig = str(e.status) + ' ' + str(e.method) + ' ' + str(e.path) + ' ' + str(e.time);
      let row = S.reqRows.get(k);
      if (!row || row.dataset.sig !== sig) {
        row = buildRequestRow(e, k);
        row.dataset.sig = sig;
        S.reqRows.set(k, row);
      }
      row.classList.toggle('selected', k === S.selectedReq);
      if (k === S.selectedReq) row.setAttribute('aria-current', 'true');
      else row.removeAttribute('aria-current');
      nodes.push(row);
    });
    for (const k of Array.from(S.reqRows.keys())) {
      if (!seen.has(k)) {
        S.reqRows.delete(k);
        if (k !== S.selectedReq) S.reqByKey.delete(k);
      }
    }
    syncChildren(tbody, nodes);
    restoreFocus(tbody, focus);
  }

  function buildRequestRow(e, k) {
    const status = Number(e.status);
    return h('tr', { class: 'req-row', 'data-testid': 'request', dataset: { requestId: str(e.requestId), rowKey: k, group: 'r:' + k } },
      h('td', { class: 'nowrap' }, timeEl(e.time, true)),
      h('td', null, h('span', { class: 'method method-' + token(e.method), text: clip(e.method, 20) })),
      h('td', { class: 'cell-path' },
        h('button', { type: 'button', class: 'linklike', 'data-testid': 'request-open', dataset: { action: 'request-open', rowKey: k, key: 'r:' + k }, title: 'Show the whole exchange' },
          clip(pathWithQuery(e), 300))),
      h('td', null, h('span', { class: 'http-status ' + statusClass(status), text: status ? String(status) : '0 (dropped)' })),
      h('td', null, h('code', { class: 'small', text: clip(e.requestId, 80) })));
  }

  function selectRequest(k) {
    const e = S.reqByKey.get(k);
    if (!e) return;
    if (S.selectedReq && S.selectedReq !== k && !S.reqRows.has(S.selectedReq)) S.reqByKey.delete(S.selectedReq);
    S.selectedReq = k;
    for (const [rk, row] of S.reqRows) {
      row.classList.toggle('selected', rk === k);
      if (rk === k) row.setAttribute('aria-current', 'true');
      else row.removeAttribute('aria-current');
    }
    renderDetail(e);
  }

  // cutText bounds a long text, with a note of what was cut.
  function cutText(text, max) {
    if (text.length <= max) return { text: text, note: null };
    return {
      text: text.slice(0, max),
      note: 'Cut: the first ' + max.toLocaleString('en') + ' of ' + text.length.toLocaleString('en') + ' characters are shown.',
    };
  }

  function renderDetail(e) {
    const body = $('request-detail-body');
    if (!e) {
      body.replaceChildren(h('p', { class: 'empty', text: 'Choose a request to see the whole exchange.' }));
      return;
    }
    const status = Number(e.status);
    const parts = [];
    parts.push(h('dl', { class: 'meta' },
      metaRow('Time', h('span', null, timeEl(e.time), ' ', h('span', { class: 'muted small', text: clip(e.time, 60) }))),
      metaRow('Request ID', h('code', { text: clip(e.requestId, 200) })),
      metaRow('Method', h('code', { text: clip(e.method, 40) })),
      metaRow('Path', h('code', { class: 'break', text: clip(e.path, MAX_VALUE_CHARS) })),
      metaRow('Answer status', h('span', { class: 'http-status ' + statusClass(status), 'data-testid': 'request-detail-status',
        text: status ? String(status) : '0: the connection was dropped without an answer' }))));

    parts.push(h('h4', { text: 'Query' }));
    const q = e.query && typeof e.query === 'object' ? Object.entries(e.query) : [];
    parts.push(q.length ? kvTable(q, 'Query parameters') : h('p', { class: 'empty', text: 'None.' }));

    parts.push(h('h4', { text: 'Headers' }));
    if (e.header === null || e.header === undefined) {
      parts.push(h('p', { class: 'empty', text: 'Not recorded: the request failed authentication.' }));
    } else if (typeof e.header === 'object') {
      const hs = Object.entries(e.header);
      parts.push(hs.length ? kvTable(hs, 'Request headers') : h('p', { class: 'empty', text: 'None.' }));
    }

    parts.push(h('h4', { text: 'Body' }));
    if (!('body' in e) || e.body === undefined) {
      parts.push(h('p', { class: 'empty', text: 'No body.' }));
    } else {
      let text;
      let kind;
      if (e.bodyEncoding === 'base64') {
        kind = 'Binary, shown as base64';
        text = str(e.body);
      } else if (e.bodyEncoding === 'text') {
        kind = 'Text';
        text = str(e.body);
      } else {
        kind = 'JSON';
        try {
          text = JSON.stringify(e.body, null, 2);
        } catch (err) {
          text = str(e.body);
        }
      }
      const cut = cutText(text, MAX_BODY_CHARS);
      parts.push(h('p', { class: 'muted small', text: kind + (e.bodyTruncated
        ? '; the record kept the beginning of a body of ' + (Number(e.bodySize) || 0).toLocaleString('en') + ' bytes.'
        : '.') }));
      if (cut.note) parts.push(h('p', { class: 'note', 'data-testid': 'request-body-cut', text: cut.note }));
      parts.push(h('pre', { class: 'body-pre', 'data-testid': 'request-body', tabindex: '0', text: cut.text }));
    }
    body.replaceChildren(...parts);
  }

  function kvTable(entries, caption) {
    const rows = [];
    for (const [k, vs] of entries.slice(0, 200)) {
      const values = Array.isArray(vs) ? vs : [vs];
      rows.push(h('tr', null,
        h('th', { scope: 'row', text: clip(k, 200) }),
        h('td', { class: 'break', text: values.map((v) => clip(typeof v === 'string' ? v : JSON.stringify(v), MAX_VALUE_CHARS)).join('\n') })));
    }
    return h('table', { class: 'data-table kv-table' }, h('caption', { class: 'vh', text: caption }), h('tbody', null, rows));
  }

  // ---------------------------------------------------------------- faults

  function faultEffect(f) {
    const bits = [];
    if (f.status !== undefined && f.status !== null && f.status !== 0) {
      bits.push('answer ' + f.status + (f.code ? ' ' + clip(f.code, 80) : '') + (f.message ? ' “' + clip(f.message, 200) + '”' : ''));
    }
    if (f.retryAfterSeconds) bits.push('Retry-After ' + f.retryAfterSeconds + ' s');
    if (f.delayMs) bits.push('delay ' + f.delayMs + ' ms');
    if (f.drop) bits.push('drop the connection');
    if (f.truncate) bits.push('truncate after ' + f.truncate + ' bytes');
    if (f.bytesPerSecond) bits.push('trickle at ' + f.bytesPerSecond + ' bytes/s');
    return bits.length ? bits.join(' · ') : '—';
  }

  function renderFaults(data) {
    const faults = arr(data && data.items).slice(0, MAX_FAULTS);
    $('faults-count').textContent = faults.length === 1 ? '1 fault in force' : faults.length + ' faults in force';
    $('faults-empty').hidden = faults.length > 0;
    const tbody = $('fault-rows');
    const focus = focusInfo(tbody);
    const nodes = faults.map((f) => {
      const id = str(f && f.id);
      return h('tr', { 'data-testid': 'fault', dataset: { id: id, group: 'fault:' + id } },
        h('td', null, h('code', { text: clip(id, 100) })),
        h('td', { text: f.method ? clip(f.method, 20) : 'any' }),
        h('td', { class: 'cell-fault-path' }, f.path ? h('code', { class: 'break', text: clip(f.path, 500) }) : h('span', { class: 'muted', text: 'any' })),
        h('td', { class: 'break', text: faultEffect(f) }),
        h('td', { class: 'num', text: f.times ? String(f.times) : 'until removed' }),
        h('td', { class: 'num', text: f.probability ? String(f.probability) : 'every one' }),
        h('td', null, h('button', {
          type: 'button', class: 'btn btn-small', 'data-testid': 'fault-remove',
          dataset: { action: 'fault-remove', id: id, key: 'fault:' + id + ':remove' },
          'aria-label': 'Remove fault ' + clip(id, 100), text: 'Remove',
        })));
    });
    syncChildren(tbody, nodes);
    if (focus) {
      const a = document.activeElement;
      if (!a || a === document.body || !document.contains(a)) {
        const el = findByData(tbody, 'key', focus.key);
        if (el) el.focus({ preventScroll: true });
        else $('faults-clear').focus({ preventScroll: true });
      }
    }
  }

  async function removeFault(btn, id) {
    if (btn.getAttribute('aria-disabled') === 'true') return;
    markBusy(btn, true);
    try {
      await api('DELETE', '/_mock/faults/' + seg(id));
      showStatus('Fault ' + clip(id, 100) + ' removed.');
      const row = btn.closest('tr');
      if (row && row.parentNode) {
        const near = row.nextElementSibling || row.previousElementSibling;
        const next = near && near.querySelector('[data-action="fault-remove"]');
        row.remove();
        (next || $('faults-clear')).focus();
      }
    } finally {
      markBusy(btn, false);
      pollers.faults.kick();
    }
  }

  // faultBody reads the form into a Fault: empty fields are left out, and
  // what is typed is sent as it is, for the server to judge.
  function faultBody(form) {
    const body = {};
    const text = (name) => form.elements[name].value.trim();
    if (text('method')) body.method = text('method');
    if (text('path')) body.path = text('path');
    if (text('code')) body.code = text('code');
    if (form.elements.message.value !== '') body.message = form.elements.message.value;
    const numbers = ['status', 'retryAfterSeconds', 'delayMs', 'truncate', 'bytesPerSecond', 'times', 'probability'];
    for (const name of numbers) {
      const el = form.elements[name];
      const v = el.value.trim();
      if (v === '') {
        if (el.validity && el.validity.badInput) throw new Error('the field “' + el.labels[0].textContent + '” is not a number');
        continue;
      }
      const n = Number(v);
      if (!isFinite(n)) throw new Error('the field “' + el.labels[0].textContent + '” is not a number');
      body[name] = n;
    }
    if (form.elements.drop.checked) body.drop = true;
    return body;
  }

  async function addFault(form) {
    const body = faultBody(form);
    const submit = form.querySelector('[type="submit"]');
    submit.disabled = true;
    try {
      const r = await api('POST', '/_mock/faults', { json: body, as: 'json' });
      showStatus('Fault ' + clip(r.data && r.data.id, 100) + ' added.');
      clearAlert('action');
      form.reset();
    } finally {
      submit.disabled = false;
      pollers.faults.kick();
    }
  }

  // ---------------------------------------------------------------- snapshot

  function stamp() {
    const d = new Date();
    return d.getFullYear() + pad(d.getMonth() + 1) + pad(d.getDate()) + '-' + pad(d.getHours()) + pad(d.getMinutes()) + pad(d.getSeconds());
  }

  async function downloadSnapshot() {
    const btn = $('snapshot-download');
    btn.disabled = true;
    try {
      const r = await api('GET', '/_mock/snapshot', { as: 'blob', timeout: 300000 });
      const blob = new Blob([r.data], { type: 'application/json' });
      const url = URL.createObjectURL(blob);
      const a = h('a', { href: url, download: 'profilesvc-snapshot-' + stamp() + '.json', class: 'vh' });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      showStatus('Snapshot downloaded (' + fmtBytes(blob.size) + ').');
    } finally {
      btn.disabled = false;
    }
  }

  async function restoreSnapshot(file) {
    const btn = $('snapshot-restore');
    btn.disabled = true;
    try {
      const text = await file.text();
      await api('PUT', '/_mock/snapshot', { body: text, contentType: 'application/json', timeout: 300000 });
      showStatus('Snapshot “' + clip(file.name, 200) + '” restored.');
      clearAlert('action');
      $('snapshot-file').value = '';
    } finally {
      btn.disabled = false;
      pollers.state.kick();
    }
  }

  async function resetNamespace() {
    const btn = $('reset-confirm');
    btn.disabled = true;
    try {
      await api('POST', '/_mock/reset', {});
      hideResetConfirm(true);
      showStatus('The namespace was reset.');
      S.selectedReq = null;
      renderDetail(null);
    } finally {
      btn.disabled = false;
      filterChanged();
      pollers.state.kick();
      pollers.faults.kick();
    }
  }

  function showResetConfirm() {
    $('reset-confirm-panel').hidden = false;
    $('reset').setAttribute('aria-expanded', 'true');
    $('reset-cancel').focus();
  }

  function hideResetConfirm(focusButton) {
    $('reset-confirm-panel').hidden = true;
    $('reset').setAttribute('aria-expanded', 'false');
    if (focusButton) $('reset').focus();
  }

  // ---------------------------------------------------------------- events

  function onClick(ev) {
    const target = ev.target instanceof Element ? ev.target : null;
    if (!target) return;
    const btn = target.closest('[data-action]');
    if (btn && !btn.disabled && btn.getAttribute('aria-disabled') !== 'true') {
      const id = btn.dataset.id;
      switch (btn.dataset.action) {
        case 'process':
          run('Start processing', () => analysisAction(id, 'process', undefined, 'Start processing'));
          return;
        case 'complete':
          run('Complete', () => analysisAction(id, 'complete', undefined, 'Complete'));
          return;
        case 'approve':
          run('Approve', () => analysisAction(id, 'verification', { verificationStatus: 'approved' }, 'Approve'));
          return;
        case 'reject':
          run('Reject', () => analysisAction(id, 'verification', { verificationStatus: 'rejected' }, 'Reject'));
          return;
        case 'fail':
          if (S.failDrafts.has(id)) {
            const input = findByData($('profile-list'), 'fail-input', id);
            if (input) input.focus();
            return;
          }
          S.failDrafts.set(id, '');
          rebuildProfileOf(id);
          {
            const input = findByData($('profile-list'), 'fail-input', id);
            if (input) input.focus();
          }
          return;
        case 'fail-cancel':
          S.failDrafts.delete(id);
          rebuildProfileOf(id);
          {
            const failBtn = findByData($('profile-list'), 'key', 'a:' + id + ':fail');
            if (failBtn) failBtn.focus();
          }
          return;
        case 'report':
          run('Report', () => openReport(id, btn.dataset.locale === 'ko' ? 'ko' : 'en'));
          return;
        case 'request-open':
          selectRequest(btn.dataset.rowKey);
          return;
        case 'fault-remove':
          run('Removing fault ' + clip(id, 100), () => removeFault(btn, id));
          return;
      }
      return;
    }
    const row = target.closest('tr.req-row');
    if (row && !target.closest('a, button, input, select, textarea')) selectRequest(row.dataset.rowKey);
  }

  function onSubmit(ev) {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement)) return;
    ev.preventDefault();
    if (form.id === 'key-form') {
      const key = $('api-key-input').value.trim();
      if (!key) {
        keyError('Enter the API key.');
        $('api-key-input').focus();
        return;
      }
      run('Checking the API key', () => useKey(key, false));
    } else if (form.id === 'requests-filter') {
      applyFilter();
    } else if (form.id === 'fault-form') {
      run('Adding the fault', () => addFault(form));
    } else if (form.dataset.failForm) {
      const id = form.dataset.failForm;
      const input = form.querySelector('input');
      const message = input ? input.value : '';
      run('Fail', () => analysisAction(id, 'fail', message.trim() ? { error: message } : {}, 'Fail'));
    }
  }

  function onInput(ev) {
    const el = ev.target;
    if (el instanceof HTMLInputElement && el.dataset.failInput) {
      S.failDrafts.set(el.dataset.failInput, el.value);
    }
  }

  function onKeydown(ev) {
    if (ev.key !== 'Escape' || !(ev.target instanceof Element)) return;
    const form = ev.target.closest('form[data-fail-form]');
    if (!form) return;
    const id = form.dataset.failForm;
    S.failDrafts.delete(id);
    rebuildProfileOf(id);
    const failBtn = findByData($('profile-list'), 'key', 'a:' + id + ':fail');
    if (failBtn) failBtn.focus();
  }

  function onChange(ev) {
    const el = ev.target;
    if (el instanceof HTMLSelectElement && el.dataset.itemId !== undefined) {
      run('Setting the item status', () => setItemStatus(el));
    }
  }


  function init() {
    document.addEventListener('click', onClick);
    document.addEventListener('submit', onSubmit);
    document.addEventListener('input', onInput);
    document.addEventListener('change', onChange);
    document.addEventListener('keydown', onKeydown);

    $('alert-dismiss').addEventListener('click', () => clearAlert());
    $('key-change').addEventListener('click', () => showKeyPanel(true));
    $('key-forget').addEventListener('click', () => {
      forgetKey();
      showStatus('The API key was forgotten.');
    });
    $('api-key-cancel').addEventListener('click', () => {
      hideKeyPanel();
      $('key-change').focus();
    });

    const setAllOpen = (open) => {
      for (const d of $('profile-list').querySelectorAll('details[data-testid="profile"]')) {
        d.open = open;
        S.openProfiles.set(d.dataset.id, open);
      }
    };
    $('profiles-expand').addEventListener('click', () => setAllOpen(true));
    $('profiles-collapse').addEventListener('click', () => setAllOpen(false));

    // The method applies when chosen; the path and status when the
    // filter is applied (Enter or Apply), not at every key: a pattern
    // half typed is not one to ask the server for.
    $('filter-method').addEventListener('change', applyFilter);
    $('filter-reset').addEventListener('click', () => {
      $('requests-filter').reset();
      applyFilter();
    });
    $('requests-clear').addEventListener('click', () => run('Emptying the request record', async () => {
      await api('DELETE', '/_mock/requests');
      S.selectedReq = null;
      renderDetail(null);
      showStatus('The request record was emptied.');
      filterChanged();
    }));

    $('faults-clear').addEventListener('click', () => run('Removing all faults', async () => {
      try {
        await api('DELETE', '/_mock/faults');
        showStatus('All faults removed.');
      } finally {
        pollers.faults.kick();
      }
    }));

    $('snapshot-download').addEventListener('click', () => run('Downloading the snapshot', downloadSnapshot));
    $('snapshot-restore').addEventListener('click', () => {
      const input = $('snapshot-file');
      const file = input.files && input.files[0];
      if (file) {
        run('Restoring the snapshot', () => restoreSnapshot(file));
      } else {
        S.restorePicking = true;
        input.click();
      }
    });
    $('snapshot-file').addEventListener('change', () => {
      const input = $('snapshot-file');
      const file = input.files && input.files[0];
      if (S.restorePicking && file) run('Restoring the snapshot', () => restoreSnapshot(file));
      S.restorePicking = false;
    });
    $('snapshot-file').addEventListener('cancel', () => {
      S.restorePicking = false;
    });

    $('reset').addEventListener('click', showResetConfirm);
    $('reset-cancel').addEventListener('click', () => hideResetConfirm(true));
    $('reset-confirm').addEventListener('click', () => run('Reset', resetNamespace));
    $('reset-confirm-panel').addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') hideResetConfirm(true);
    });

    window.addEventListener('unhandledrejection', (ev) => {
      ev.preventDefault();
      showAlert('Unexpected error: ' + clip(ev.reason && ev.reason.message ? ev.reason.message : String(ev.reason), MAX_MESSAGE_CHARS), 'action');
    });

    const stored = storageGet();
    if (stored) {
      $('key-panel').hidden = true;
      setLive('off', 'Connecting…');
      run('Checking the API key', () => useKey(stored, true));
    } else {
      showKeyPanel(false);
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
